/**
 * `kgraph fleet diff` over a snapshot (design/rgd.md §19.9): the schema verdict of old → new, then for
 * every instance its diff (instanceDiff.ts) against one observed state built from one list per kind.
 * Pure: the snapshot comes in (cluster.ts reads it), the report goes out (report.ts prints it).
 */

import { applySetId, isSuspended } from '../controller/rgd/names.ts';
import {
  ANNOTATION_REVISION,
  ANNOTATION_REVISION_POLICY,
  RevisionResolutionError,
  readPin,
} from '../controller/rgd/revisionPolicy.ts';
import type { InstanceIdentity } from '../controller/rgd/stamp.ts';
import { isRecord } from '../diag/record.ts';
import type { CompiledGraph } from '../graph/model.ts';
import { type KubeObject, observedFromObjects, type TypeInfo } from '../runtime/observed.ts';
import { childrenByApplySet, diffInstance, type InstanceDiff } from './instanceDiff.ts';
import { type FleetDiffReport, summarize } from './report.ts';
import { instanceProblems, schemaVerdict, withNewDefaults } from './schemaVerdict.ts';

const REFUSED =
  'not reconciled: the controller refuses the CRD update (KindReady=False, BreakingChange) and stops serving the kind';

export interface FleetSide {
  /** The RGD object (its `spec`; `metadata.annotations` carry the breaking-change opt-in). */
  rgd: Record<string, unknown>;
  graph: CompiledGraph;
  /** How the report names it: `revision 3`, `file new.yaml`. */
  label: string;
}

export interface FleetSnapshot {
  /** The RGD's instances, as listed. */
  instances: readonly KubeObject[];
  /** Every object of every kind either spec reads or writes, and the kinds of the instances' inventories. */
  objects: readonly KubeObject[];
  /** The kinds listed, served by the cluster. */
  types: readonly TypeInfo[];
}

export function diffFleet(
  name: string,
  from: FleetSide,
  to: FleetSide,
  snapshot: FleetSnapshot,
  opts: { maxCollectionSize?: number } = {},
): FleetDiffReport {
  const verdict = schemaVerdict(from.rgd, from.graph, to.rgd, to.graph);
  const rgd = to.graph.rgd;
  if (!rgd) throw new Error('internal: fleet diff of a graph that is not an RGD');
  const observed = observedFromObjects(snapshot.objects, { types: snapshot.types });
  const children = childrenByApplySet(snapshot.objects);
  const instances: InstanceDiff[] = [];
  for (const inst of sorted(snapshot.instances)) {
    const meta = isRecord(inst.metadata) ? inst.metadata : {};
    const nameOf = String(meta.name ?? '');
    const namespace = rgd.scope === 'Cluster' ? '' : String(meta.namespace ?? '');
    const identity: InstanceIdentity = {
      uid: String(meta.uid ?? ''),
      name: nameOf,
      namespace,
      group: rgd.group,
      version: rgd.apiVersion,
      kind: rgd.kind,
      applySetId: applySetId(nameOf, namespace, rgd.kind, rgd.group),
    };
    const head = { ...(namespace ? { namespace } : {}), name: nameOf, objects: [], waits: [], errors: [] };
    if (meta.deletionTimestamp !== undefined) {
      instances.push({ ...head, skipped: 'being deleted' });
      continue;
    }
    const annotations = isRecord(meta.annotations) ? (meta.annotations as Record<string, string>) : undefined;
    if (isSuspended(annotations)) {
      instances.push({ ...head, skipped: 'suspended (kro.run/reconcile)' });
      continue;
    }
    const pin = readPin({ ...(annotations ? { annotations } : {}) });
    if (pin instanceof RevisionResolutionError) {
      // The controller stops such an instance (design/rgd.md §19.7): no spec reaches it.
      instances.push({ ...head, skipped: `stopped: ${pin.message}` });
      continue;
    }
    if (pin.policy === 'Manual' || pin.revision !== undefined) {
      // Pinned by its owner (a policy or a revision number): no new spec reaches it until the pin is lifted.
      const what =
        pin.revision !== undefined
          ? `${ANNOTATION_REVISION}: ${pin.revision}`
          : `${ANNOTATION_REVISION_POLICY}: Manual`;
      instances.push({ ...head, skipped: `pinned (${what})` });
      continue;
    }
    if (verdict.verdict === 'refused') {
      // The registrar keeps the old CRD and stops serving the kind (design/rgd.md §19.4): nothing is written.
      instances.push({ ...head, skipped: REFUSED });
      continue;
    }
    const newInstance = withNewDefaults(inst, verdict.specSchema);
    const problems = instanceProblems(newInstance, verdict.specSchema);
    const diff = diffInstance({
      oldGraph: from.graph,
      newGraph: to.graph,
      instance: inst,
      newInstance,
      identity,
      observed,
      children: children.get(identity.applySetId) ?? [],
      ...(opts.maxCollectionSize !== undefined ? { maxCollectionSize: opts.maxCollectionSize } : {}),
    });
    instances.push(problems.length > 0 ? { ...diff, invalid: problems } : diff);
  }
  const { specSchema: _s, ...schema } = verdict;
  return { rgd: name, from: from.label, to: to.label, schema, instances, summary: summarize(instances) };
}

/** Namespace, then name: the same report for the same fleet. */
function sorted(instances: readonly KubeObject[]): KubeObject[] {
  const key = (o: KubeObject) => {
    const m = isRecord(o.metadata) ? o.metadata : {};
    return `${String(m.namespace ?? '')}/${String(m.name ?? '')}`;
  };
  return [...instances].sort((a, b) => key(a).localeCompare(key(b)));
}
