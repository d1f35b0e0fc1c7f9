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

/** What the identity rules read of a node's payload: its type, its metadata and where each sits. */
interface IdentityFields {
  node: string;
  segs: Draft['payloadSegs'];
  p: YMap;
  api: string | undefined;
  kind: string | undefined;
  apiE: YEntry | undefined;
  kindE: YEntry | undefined;
  metaE: YEntry | undefined;
  meta: YMap | undefined;
  nameE: YEntry | undefined;
  nsE: YEntry | undefined;
  selE: YEntry | undefined;
  isRef: boolean;
}

/** apiVersion / kind / metadata.name rules, dynamic types, scope, patch and ref payload rules. */
export function readIdentity(s: CompilerState, d: Draft, p: YMap): void {
  const f = identityFields(d, p);
  checkType(s, d, f);
  if (f.isRef) checkRefTarget(s, d, f);
  else if (d.kind === 'watch') {
    /* no name: checked by readWatch below, once the kind's scope is known */
  } else if (!f.nameE || str(f.nameE.value) === undefined || str(f.nameE.value) === '')
    checkMissingName(s, d, f);
  if (d.kind === 'patch') readPatch(s, d, p, f.meta);
  // Kind resolution (scope) for literal types.
  if (!d.dynamic && f.api && f.kind && s.ctx.resolver) resolveKind(s, d, f, f.api, f.kind);
  if (d.kind === 'watch') {
    readWatch(s, d, p);
    return;
  }
  checkScope(s, d, f);
}

function identityFields(d: Draft, p: YMap): IdentityFields {
  const apiE = entryOf(p, 'apiVersion');
  const kindE = entryOf(p, 'kind');
  const metaE = entryOf(p, 'metadata');
  const meta = metaE?.value.t === 'map' ? metaE.value : undefined;
  return {
    node: nodePath(d),
    segs: d.payloadSegs,
    p,
    api: str(apiE?.value),
    kind: str(kindE?.value),
    apiE,
    kindE,
    metaE,
    meta,
    nameE: meta ? entryOf(meta, 'name') : undefined,
    nsE: meta ? entryOf(meta, 'namespace') : undefined,
    selE: meta ? entryOf(meta, 'selector') : undefined,
    isRef: d.kind === 'ref' || d.kind === 'externalRef',
  };
}

/** apiVersion and kind are required; `${…}` in either makes the node's type dynamic. */
function checkType(
  s: CompilerState,
  d: Draft,
  { node, segs, p, api, kind, apiE, kindE }: IdentityFields,
): void {
  const { ctx } = s;
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
}

/** A ref names its target by metadata.name or metadata.selector, never both. */
function checkRefTarget(
  s: CompilerState,
  d: Draft,
  { node, segs, p, metaE, nameE, selE }: IdentityFields,
): void {
  const { ctx, flavor } = s;
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
  if (selE) {
    const sv = selE.value;
    if (sv.t === 'map') {
      /* a literal selector (possibly with expressions inside) */
    } else if (!flavor.rgd && sv.t === 'scalar' && typeof sv.value === 'string' && isStandalone(sv.value)) {
      /* one standalone expression (Graph only) */
    } else {
      ctx.error(
        GraphCode.RefInvalidSelector,
        flavor.rgd
          ? 'metadata.selector must be a LabelSelector map (matchLabels / matchExpressions)'
          : 'metadata.selector must be a LabelSelector map or one standalone ${…} expression yielding one',
        { node, segs: [...segs, 'metadata', 'selector'], at: { pos: sv.pos } },
      );
    }
  }
}

/** A missing metadata.name; a misspelt key (`nmae`) is the likely cause: name it, and point at it. */
function checkMissingName(
  s: CompilerState,
  d: Draft,
  { node, segs, p, metaE, meta, nameE }: IdentityFields,
): void {
  const { ctx } = s;
  const typo = !nameE && meta ? meta.entries.find((e) => closest(e.key, ['name']) === 'name') : undefined;
  ctx.error(
    GraphCode.MissingName,
    `${d.kind} requires metadata.name${typo ? ` (metadata has "${typo.key}": did you mean "name"?)` : ''}`,
    {
      node,
      segs: [...segs, 'metadata', typo ? typo.key : 'name'],
      at: { pos: typo ? typo.keyPos : nameE ? nameE.value.pos : metaE ? metaE.keyPos : p.pos },
    },
  );
}

function resolveKind(
  s: CompilerState,
  d: Draft,
  { node, segs, kindE }: IdentityFields,
  api: string,
  kind: string,
): void {
  const { ctx } = s;
  const resolver = s.ctx.resolver!;
  const info = resolver.lookup(api, kind);
  if (info) d.info = info;
  else {
    ctx.error(
      GraphCode.UnknownKind,
      `schema not found for ${api}, Kind=${kind}: ${resolver.explain?.(api, kind) ?? `the kind is unknown to the schema sources (${resolver.describe()})`}`,
      {
        node,
        segs: [...segs, 'kind'],
        at: { pos: kindE!.value.pos },
        hint: 'install its CRD, pass the CRD file with --crd, or make apiVersion/kind dynamic',
      },
    );
  }
}

/** Namespace rules by the kind's scope (design/graph.md §13). */
function checkScope(
  s: CompilerState,
  d: Draft,
  { node, segs, p, kind, metaE, nameE, nsE, isRef }: IdentityFields,
): void {
  const { ctx, flavor } = s;
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
  if (scope === 'Namespaced' && !nsE && single && (d.kind === 'template' || isRef)) {
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
