/**
 * What `kgraph fleet diff` reads from the cluster (design/rgd.md §19.9), and nothing else: the two
 * specs (the cluster's RGD, its GraphRevisions, or a file compiled against the cluster's schemas), the
 * RGD's instances, and one LIST per kind the old and new graphs read or write or the instances'
 * ApplySet inventories name — never a request per instance. Read-only.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { GraphCompiler } from '../controller/core/graphCompiler.ts';
import { parseGroupKind, readInventory } from '../controller/rgd/applyset.ts';
import { GroupKindVersions } from '../controller/rgd/children.ts';
import {
  GRAPH_REVISION_API_VERSION,
  GRAPH_REVISION_PLURAL,
  RGD_API_VERSION,
  RGD_PLURAL,
} from '../controller/rgd/names.ts';
import { type Diagnostic, KgraphError } from '../diag/diagnostic.ts';
import { isRecord } from '../diag/record.ts';
import { formatDiagnostic } from '../graph/format.ts';
import { validatePathsLive } from '../graph/validate.ts';
import type { KubeObject, RestClient } from '../kube/index.ts';
import { kubeLiveFetcher } from '../kube/liveSchema.ts';
import type { TypeInfo } from '../runtime/observed.ts';
import { FleetCode } from './codes.ts';
import type { FleetSide, FleetSnapshot } from './fleetDiff.ts';

export interface Sides {
  name: string;
  from: FleetSide;
  to: FleetSide;
}

export interface Scope {
  /** Instances of this namespace; undefined with `all`. */
  namespace?: string;
  all?: boolean;
  /** `-l`: a label selector on the instances. */
  selector?: string;
}

/** `-f FILE`: the file's RGD (compiled against the cluster's schemas) against the cluster's RGD of that name. */
export async function sidesFromFile(
  client: RestClient,
  file: string,
  inline?: ReadonlyMap<string, string>,
): Promise<Sides> {
  const live = kubeLiveFetcher(client, client.server, { cacheDir: false });
  const validated = await validatePathsLive([file], live, inline ? { inline } : {});
  const errors: string[] = [];
  const say = (d: Diagnostic, source: string) => {
    if (d.severity === 'error')
      errors.push(formatDiagnostic(d, validated.sources.get(d.location?.file ?? source)).trimEnd());
  };
  for (const d of validated.fileDiagnostics) say(d, file);
  const rgds = validated.objects
    .map((o, i) => ({ o, r: validated.results[i] }))
    .filter(({ o }) => o.kind === 'ResourceGraphDefinition');
  for (const { o } of rgds) for (const d of o.diagnostics) say(d, o.file);
  if (errors.length > 0)
    throw new KgraphError(FleetCode.NotAccepted, `${file} is not accepted:\n${errors.join('\n')}`);
  if (rgds.length !== 1) {
    throw new KgraphError(
      FleetCode.BadInput,
      `${file} holds ${rgds.length} ResourceGraphDefinitions; fleet diff compares one`,
    );
  }
  const { o, r } = rgds[0]!;
  const graph = r?.graph;
  if (!o.accepted || !graph)
    throw new KgraphError(FleetCode.NotAccepted, `${file}: ${o.name} is not accepted`);
  const current = await client.getOrUndefined({
    apiVersion: RGD_API_VERSION,
    plural: RGD_PLURAL,
    name: o.name,
  });
  if (!current) {
    throw new KgraphError(
      FleetCode.NoRgd,
      `no ResourceGraphDefinition ${o.name} in the cluster: nothing to compare ${file} with`,
    );
  }
  const from = await compileSide(
    client,
    current,
    `the cluster's spec (generation ${current.metadata.generation ?? 0})`,
  );
  const text = inline?.get(file) ?? readFileSync(file, 'utf8');
  const doc = rgdDocument(text, o.name) ?? { metadata: { name: o.name } };
  return { name: o.name, from, to: { rgd: doc, graph, label: file } };
}

/** `--rgd NAME --from N [--to M]`: two GraphRevisions (`--to` absent: the cluster's current spec). */
export async function sidesFromRevisions(
  client: RestClient,
  name: string,
  from: number,
  to: number | undefined,
): Promise<Sides> {
  const current = await client.getOrUndefined({ apiVersion: RGD_API_VERSION, plural: RGD_PLURAL, name });
  if (!current) throw new KgraphError(FleetCode.NoRgd, `no ResourceGraphDefinition ${name} in the cluster`);
  const revisions = (
    await client.listAll(
      { apiVersion: GRAPH_REVISION_API_VERSION, plural: GRAPH_REVISION_PLURAL },
      { fieldSelector: `spec.snapshot.name=${name}` },
    )
  ).items;
  const pick = async (n: number): Promise<FleetSide> => {
    const r = revisions.find((x) => (x.spec as { revision?: number } | undefined)?.revision === n);
    if (!r) {
      const have = revisions
        .map((x) => (x.spec as { revision?: number } | undefined)?.revision)
        .filter((x): x is number => typeof x === 'number')
        .sort((a, b) => a - b);
      throw new KgraphError(
        FleetCode.NoRevision,
        `ResourceGraphDefinition ${name} has no revision ${n} (revisions kept: ${have.join(', ') || 'none'})`,
      );
    }
    const spec = (r.spec as { snapshot?: { spec?: unknown } }).snapshot?.spec;
    // The opt-in to breaking changes is an annotation of the RGD, not part of a revision: the cluster's.
    const rgd: KubeObject = {
      apiVersion: RGD_API_VERSION,
      kind: 'ResourceGraphDefinition',
      metadata: {
        name,
        ...(current.metadata.annotations ? { annotations: current.metadata.annotations } : {}),
      },
      spec: isRecord(spec) ? spec : {},
    };
    return compileSide(client, rgd, `revision ${n}`);
  };
  const fromSide = await pick(from);
  const toSide =
    to === undefined
      ? await compileSide(
          client,
          current,
          `the cluster's spec (generation ${current.metadata.generation ?? 0})`,
        )
      : await pick(to);
  return { name, from: fromSide, to: toSide };
}

async function compileSide(client: RestClient, rgd: KubeObject, label: string): Promise<FleetSide> {
  const outcome = await new GraphCompiler(client).compile(rgd as unknown as Record<string, unknown>);
  if (!outcome.accepted || !outcome.compiled) {
    const messages = outcome.diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => `${d.code}: ${d.message}`)
      .join('; ');
    throw new KgraphError(
      FleetCode.NotAccepted,
      `${label} of ${rgd.metadata.name} does not compile: ${messages}`,
    );
  }
  return { rgd: rgd as unknown as Record<string, unknown>, graph: outcome.compiled, label };
}

/** The file's RGD document named `name` (its annotations carry the breaking-change opt-in). */
function rgdDocument(text: string, name: string): Record<string, unknown> | undefined {
  for (const doc of parseAllDocuments(text, { uniqueKeys: false })) {
    const v: unknown = doc.toJS();
    if (
      isRecord(v) &&
      v.kind === 'ResourceGraphDefinition' &&
      isRecord(v.metadata) &&
      v.metadata.name === name
    )
      return v;
  }
  return undefined;
}

/** The instances in scope and one LIST per kind either graph touches or an instance's inventory names. */
export async function readSnapshot(client: RestClient, sides: Sides, scope: Scope): Promise<FleetSnapshot> {
  const rgd = sides.from.graph.rgd;
  if (!rgd) throw new KgraphError(FleetCode.BadInput, `${sides.name} is not a ResourceGraphDefinition`);
  const apiVersion = `${rgd.group}/${rgd.apiVersion}`;
  const namespace = rgd.scope === 'Cluster' || scope.all ? undefined : (scope.namespace ?? 'default');
  const instances = (
    await client.listAll(
      { apiVersion, kind: rgd.kind, ...(namespace ? { namespace } : {}) },
      scope.selector ? { labelSelector: scope.selector } : {},
    )
  ).items.map((o) => ({ ...o, apiVersion, kind: rgd.kind }));

  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  const add = (a: string, k: string) => kinds.set(`${a}/${k}`, { apiVersion: a, kind: k });
  for (const side of [sides.from, sides.to])
    for (const k of side.graph.requiredKinds) add(k.apiVersion, k.kind);
  const versions = new GroupKindVersions(client.discovery);
  const groupKinds = new Set(instances.flatMap((i) => readInventory(i.metadata.annotations).groupKinds));
  for (const gk of groupKinds) {
    const v = await versions.apiVersionOf(gk);
    if (v) add(v, parseGroupKind(gk).kind);
  }
  const types: TypeInfo[] = [];
  const lists = await Promise.all(
    [...kinds.values()].map(async (k) => {
      const info = await client.discovery.resolveKind(k.apiVersion, k.kind).catch(() => undefined);
      if (!info) return [];
      types.push({ apiVersion: k.apiVersion, kind: k.kind, namespaced: info.namespaced });
      const res = await client.listAll({
        apiVersion: k.apiVersion,
        kind: k.kind,
        ...(info.namespaced && namespace ? { namespace } : {}),
      });
      return res.items.map((o) => ({ ...o, apiVersion: k.apiVersion, kind: k.kind }));
    }),
  );
  return { instances, objects: lists.flat() as KubeObject[], types };
}
