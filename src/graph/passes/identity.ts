// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax
/**
 * Identity rules, run by the structure pass for every non-def node: apiVersion/kind/metadata.name,
 * dynamic types, kind resolution and scope rules, ref selectors and the patch payload rules (design/graph.md §13).
 */
import { closest } from '../../diag/suggest.ts';
import { isStandalone } from '../../expr/index.ts';
import { GraphCode } from '../codes.ts';
import type { YEntry, YMap } from '../yamlTree.ts';
import { type CompilerState, type Draft, nodePath } from './state.ts';
import { readWatch } from './watch.ts';
import { entryOf, str } from './yamlAccess.ts';

const PATCH_FORBIDDEN_METADATA = ['ownerReferences', 'finalizers', 'deletionTimestamp', 'uid'];

/** The payload's metadata entries the identity rules look at. */
interface MetadataEntries {
  metaE: YEntry | undefined;
  meta: YMap | undefined;
  nameE: YEntry | undefined;
  nsE: YEntry | undefined;
  selE: YEntry | undefined;
}

/** apiVersion / kind / metadata.name rules, dynamic types, scope, patch and ref payload rules. */
export function readIdentity(s: CompilerState, d: Draft, p: YMap): void {
  const typed = readType(s, d, p);
  const metaE = entryOf(p, 'metadata');
  const meta = metaE?.value.t === 'map' ? metaE.value : undefined;
  const m: MetadataEntries = {
    metaE,
    meta,
    nameE: meta ? entryOf(meta, 'name') : undefined,
    nsE: meta ? entryOf(meta, 'namespace') : undefined,
    selE: meta ? entryOf(meta, 'selector') : undefined,
  };
  if (d.kind === 'ref' || d.kind === 'externalRef') readRefTarget(s, d, p, m);
  else if (d.kind !== 'watch') readName(s, d, p, m); // a watch has no name: readWatch checks it
  if (d.kind === 'patch') readPatch(s, d, p, meta);
  resolveKind(s, d, typed);
  if (d.kind === 'watch') {
    readWatch(s, d, p);
    return;
  }
  checkNamespaceRules(s, d, p, m, typed.kind);
}

/** apiVersion and kind: both required; either holding `${…}` makes the node's type dynamic. */
function readType(
  s: CompilerState,
  d: Draft,
  p: YMap,
): { api: string | undefined; kind: string | undefined; kindE: YEntry | undefined } {
  const { ctx } = s;
  const node = nodePath(d);
  const segs = d.payloadSegs;
  const apiE = entryOf(p, 'apiVersion');
  const kindE = entryOf(p, 'kind');
  const api = str(apiE?.value);
  const kind = str(kindE?.value);
  if (api === undefined || api === '') {
    ctx.error(GraphCode.MissingApiVersion, `${d.kind} requires apiVersion`, {
      node,
      segs: [...segs, 'apiVersion'],
      at: { pos: apiE ? apiE.value.pos : p.pos },
    });
  }
  if (kind === undefined || kind === '') {
    ctx.error(GraphCode.MissingKind, `${d.kind} requires kind`, {
      node,
      segs: [...segs, 'kind'],
      at: { pos: kindE ? kindE.value.pos : p.pos },
    });
  }
  d.dynamic = (api?.includes('${') ?? false) || (kind?.includes('${') ?? false);
  if (api && kind) {
    d.apiVersion = api;
    d.kindName = kind;
  }
  return { api, kind, kindE };
}

/** A ref names one object or selects several: exactly one of metadata.name and metadata.selector. */
function readRefTarget(s: CompilerState, d: Draft, p: YMap, m: MetadataEntries): void {
  const { ctx, flavor } = s;
  const node = nodePath(d);
  const segs = d.payloadSegs;
  const { nameE, selE, metaE } = m;
  if (nameE && selE) {
    ctx.error(GraphCode.RefNameAndSelector, 'metadata takes either name or selector, never both', {
      node,
      segs: [...segs, 'metadata', 'selector'],
      at: { pos: selE.keyPos },
    });
  } else if (!nameE && !selE) {
    ctx.error(GraphCode.RefNoNameNorSelector, `${d.kind} requires metadata.name or metadata.selector`, {
      node,
      segs: [...segs, 'metadata'],
      at: { pos: metaE ? metaE.keyPos : p.pos },
    });
  }
  if (!selE) return;
  const sv = selE.value;
  // A literal selector map (possibly with expressions inside), or in a Graph one standalone expression.
  if (sv.t === 'map') return;
  if (!flavor.rgd && sv.t === 'scalar' && typeof sv.value === 'string' && isStandalone(sv.value)) return;
  ctx.error(
    GraphCode.RefInvalidSelector,
    flavor.rgd
      ? 'metadata.selector must be a LabelSelector map (matchLabels / matchExpressions)'
      : 'metadata.selector must be a LabelSelector map or one standalone ${…} expression yielding one',
    { node, segs: [...segs, 'metadata', 'selector'], at: { pos: sv.pos } },
  );
}

/** Every other node needs a non-empty metadata.name. */
function readName(s: CompilerState, d: Draft, p: YMap, m: MetadataEntries): void {
  const { nameE, meta, metaE } = m;
  if (nameE && str(nameE.value) !== undefined && str(nameE.value) !== '') return;
  // A misspelt key (`nmae`) is the likely cause: name it, and point at it.
  const typo = !nameE && meta ? meta.entries.find((e) => closest(e.key, ['name']) === 'name') : undefined;
  s.ctx.error(
    GraphCode.MissingName,
    `${d.kind} requires metadata.name${typo ? ` (metadata has "${typo.key}": did you mean "name"?)` : ''}`,
    {
      node: nodePath(d),
      segs: [...d.payloadSegs, 'metadata', typo ? typo.key : 'name'],
      at: { pos: typo ? typo.keyPos : nameE ? nameE.value.pos : metaE ? metaE.keyPos : p.pos },
    },
  );
}

/** Kind resolution (and with it the scope) for literal types. */
function resolveKind(
  s: CompilerState,
  d: Draft,
  typed: { api: string | undefined; kind: string | undefined; kindE: YEntry | undefined },
): void {
  const { api, kind, kindE } = typed;
  const resolver = s.ctx.resolver;
  if (d.dynamic || !api || !kind || !resolver) return;
  const info = resolver.lookup(api, kind);
  if (info) {
    d.info = info;
    return;
  }
  s.ctx.error(
    GraphCode.UnknownKind,
    `schema not found for ${api}, Kind=${kind}: ${resolver.explain?.(api, kind) ?? `the kind is unknown to the schema sources (${resolver.describe()})`}`,
    {
      node: nodePath(d),
      segs: [...d.payloadSegs, 'kind'],
      at: { pos: kindE!.value.pos },
      hint: 'install its CRD, pass the CRD file with --crd, or make apiVersion/kind dynamic',
    },
  );
}

/**
 * Scope rules: a cluster-scoped kind sets no namespace; a namespaced one must set it where the
 * instance's namespace cannot stand in (a krop provider or host plane, a cluster-scoped RGD instance).
 */
function checkNamespaceRules(
  s: CompilerState,
  d: Draft,
  p: YMap,
  m: MetadataEntries,
  kind: string | undefined,
): void {
  const { ctx, flavor } = s;
  const node = nodePath(d);
  const segs = d.payloadSegs;
  const { nsE, nameE, metaE } = m;
  const isRef = d.kind === 'ref' || d.kind === 'externalRef';
  const scope = d.info?.scope;
  if (scope === 'Cluster' && nsE && (d.kind === 'template' || d.kind === 'patch' || isRef)) {
    ctx.error(
      GraphCode.ClusterScopedNamespace,
      `${kind} is cluster-scoped and must not set metadata.namespace`,
      {
        node,
        segs: [...segs, 'metadata', 'namespace'],
        at: { pos: nsE.keyPos },
      },
    );
  }
  const single = !isRef || !!nameE;
  if (scope !== 'Namespaced' || nsE || !single || !(d.kind === 'template' || isRef)) return;
  if (flavor.source === 'KropRGD' && d.target !== 'consumer') {
    ctx.error(
      GraphCode.PlaneNamespaceRequired,
      `resource ${JSON.stringify(d.id)} targets the ${d.target} plane: namespaced ${kind} must set metadata.namespace explicitly`,
      { node, segs: [...segs, 'metadata'], at: { pos: metaE ? metaE.keyPos : p.pos } },
    );
  } else if (flavor.rgd && s.rgdClusterScoped) {
    ctx.error(
      GraphCode.ClusterInstanceNamespaceRequired,
      `the instance kind is cluster-scoped: namespaced ${kind} must set metadata.namespace explicitly`,
      { node, segs: [...segs, 'metadata'], at: { pos: metaE ? metaE.keyPos : p.pos } },
    );
  }
}

export function readPatch(s: CompilerState, d: Draft, p: YMap, meta: YMap | undefined): void {
  const { ctx } = s;
  const node = nodePath(d);
  const segs = d.payloadSegs;
  let status: YEntry | undefined;
  let main: YEntry | undefined;
  for (const e of p.entries) {
    if (e.key === 'apiVersion' || e.key === 'kind' || e.key === 'metadata') continue;
    if (e.key === 'status') status = e;
    else main ??= e;
  }
  if (meta) {
    for (const e of meta.entries) {
      if (PATCH_FORBIDDEN_METADATA.includes(e.key)) {
        ctx.error(
          GraphCode.PatchForbiddenMetadata,
          `metadata.${e.key} is not allowed in a patch: a patch must never be able to delete or terminate its target`,
          { node, segs: [...segs, 'metadata', e.key], at: { pos: e.keyPos } },
        );
      } else if (e.key !== 'name' && e.key !== 'namespace') {
        main ??= e;
      }
    }
  }
  if (status && main) {
    ctx.error(
      GraphCode.PatchMixedEndpoints,
      `a patch may not mix the status subresource with the main resource (found status and ${main.key}); use two patch nodes`,
      { node, segs: [...segs, main.key === 'status' ? 'status' : main.key], at: { pos: main.keyPos } },
    );
  } else if (!status && !main) {
    ctx.error(
      GraphCode.PatchIdentityOnly,
      'a patch must contribute at least one field; an identity-only payload is rejected',
      {
        node,
        segs,
        at: { pos: p.pos },
      },
    );
  }
  d.compiledPatchEndpoint = status ? 'status' : 'main';
}
