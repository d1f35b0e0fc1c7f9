/**
 * The deployer side of the synth output contract: recovers identity hashes and the apply order from the
 * manifests alone (their `kix.run/*` annotations), so order never depends on document position and YAML
 * produced elsewhere can be deployed too.
 */
import { graphIdFor, objectKey } from './build.ts';
import { SdkCode, SdkError } from './errors.ts';
import { identityHash, outPathName } from './hash.ts';
import { topoOrder } from './synth.ts';
import type { Json, Manifest } from './values.ts';

/** `namespace`: implicit edge from a namespaced object to its Namespace when that is in the set. */
export type EdgeKind = 'data' | 'requires' | 'extra' | 'namespace';

export interface PlannedObject {
  readonly key: string;
  readonly kind: string;
  readonly graphId: string;
  readonly hash: string;
  readonly manifest: Manifest;
  /** `kix.run/import: "true"`: waited on, never applied or pruned. */
  readonly import: boolean;
  readonly dependsOn: readonly { readonly hash: string; readonly kind: EdgeKind; readonly key: string }[];
}

/** The identity hash of a synthesized manifest, recomputed from the manifest itself. */
export function manifestHash(m: Manifest): string {
  return identityHash(outPathName(m.kind, m.metadata.namespace, m.metadata.name), m as unknown as Json);
}

export function parseDependsOn(value: string | undefined): { hash: string; kind: EdgeKind }[] {
  if (value === undefined || value === '') return [];
  return value.split(',').map((e) => {
    const entry = e.trim();
    if (entry.startsWith('requires:')) return { hash: entry.slice(9), kind: 'requires' as const };
    if (entry.startsWith('extra:')) return { hash: entry.slice(6), kind: 'extra' as const };
    return { hash: entry, kind: 'data' as const };
  });
}

/** Apply order (topological, ties by key) from the annotations; an entry matching no object is an error. */
export function planOrder(manifests: readonly Manifest[]): PlannedObject[] {
  const byHash = new Map<string, PlannedObject>();
  const objs: PlannedObject[] = [];
  const pending: { obj: PlannedObject; entries: { hash: string; kind: EdgeKind }[] }[] = [];
  for (const m of manifests) {
    const hash = manifestHash(m);
    const entries = parseDependsOn(m.metadata.annotations?.['kix.run/depends-on']);
    const obj: PlannedObject = {
      key: objectKey(m.apiVersion, m.kind, m.metadata.namespace, m.metadata.name),
      kind: m.kind,
      graphId: graphIdFor(m.kind, m.metadata.name),
      hash,
      manifest: m,
      import: m.metadata.annotations?.['kix.run/import'] === 'true',
      dependsOn: [],
    };
    byHash.set(hash, obj);
    objs.push(obj);
    pending.push({ obj, entries });
  }
  const deps = new Map<PlannedObject, Set<PlannedObject>>();
  for (const { obj, entries } of pending) {
    const set = new Set<PlannedObject>();
    const resolved: { hash: string; kind: EdgeKind; key: string }[] = [];
    for (const e of entries) {
      const target = byHash.get(e.hash);
      if (!target) {
        throw new SdkError(
          SdkCode.unresolvedDependency,
          `${obj.key}: kix.run/depends-on entry ${e.kind === 'data' ? '' : `${e.kind}:`}${e.hash} matches no object in the deploy set (was it edited after synth?)`,
          { node: obj.key },
        );
      }
      set.add(target);
      resolved.push({ ...e, key: target.key });
    }
    const ns = obj.manifest.metadata.namespace;
    const nsObj =
      ns === undefined
        ? undefined
        : objs.find(
            (o) =>
              o.kind === 'Namespace' && o.manifest.apiVersion === 'v1' && o.manifest.metadata.name === ns,
          );
    if (nsObj && !set.has(nsObj)) {
      set.add(nsObj);
      resolved.push({ hash: nsObj.hash, kind: 'namespace', key: nsObj.key });
    }
    (obj as { dependsOn: PlannedObject['dependsOn'] }).dependsOn = resolved;
    deps.set(obj, set);
  }
  return topoOrder(objs, deps);
}
