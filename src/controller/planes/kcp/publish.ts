/**
 * Publishing a blueprint on kcp (krop's registrar output): the instance API as an APIResourceSchema
 * `v<specHash>.<plural>.<group>` (immutable, so a new hash is a new schema; created once, never patched)
 * and an APIExport `<plural>.<group>` that serves it with the derived permission claims. A claim of a
 * built-in type carries an empty identity hash; a foreign type's hash comes from the APIBinding that
 * binds it in the provider workspace, and a type no binding provides refuses the publication
 * (`ClaimIdentityUnresolved`) instead of publishing a claim no consumer could honour.
 */
import { kubectlName } from '../../../diag/objectName.ts';
import { isApiError, type KubeObject, type RestClient } from '../../../kube/index.ts';
import {
  APIS_KCP_V1ALPHA1,
  APIS_KCP_V1ALPHA2,
  bindingView,
  KCP_BUILTIN_GROUPS,
  type KcpPermissionClaim,
} from '../../../kube/kcp.ts';
import { publishedClaim, type TypedClaim } from '../claims.ts';
import {
  ANNOTATION_BLUEPRINT,
  ANNOTATION_SPEC_HASH,
  LABEL_BLUEPRINT,
  REGISTRAR_MANAGER,
} from '../kropApi.ts';
import { safeLabelValue } from '../naming.ts';
import type { PublishedBlueprint } from '../published.ts';
import type { PublishAnswer } from '../registrar.ts';

/** A derived claim with the identity hash kcp needs. */
export interface KcpClaim extends TypedClaim {
  identityHash: string;
}

/** The APIResourceSchema name of a published blueprint. */
export function schemaName(bp: Pick<PublishedBlueprint, 'specHash' | 'exportName'>): string {
  return `v${bp.specHash}.${bp.exportName}`;
}

/**
 * Identity hashes of the claims: '' for kcp's built-in groups, else the hash of the schema the provider
 * workspace has bound for that GroupResource. `unresolved` names the claims no binding provides.
 */
export async function resolveIdentities(
  provider: RestClient,
  claims: readonly TypedClaim[],
): Promise<{ claims: KcpClaim[]; unresolved: string[] }> {
  const bound = new Map<string, string>();
  if (claims.some((c) => !KCP_BUILTIN_GROUPS.has(c.group))) {
    const { items } = await provider.listAll({ apiVersion: APIS_KCP_V1ALPHA2, plural: 'apibindings' });
    for (const b of items.map(bindingView))
      for (const r of b.boundResources)
        if (r.identityHash) bound.set(`${r.group}/${r.resource}`, r.identityHash);
  }
  const out: KcpClaim[] = [];
  const unresolved: string[] = [];
  for (const c of claims) {
    if (KCP_BUILTIN_GROUPS.has(c.group)) {
      out.push({ ...c, identityHash: '' });
      continue;
    }
    const hash = bound.get(`${c.group}/${c.resource}`);
    if (hash) out.push({ ...c, identityHash: hash });
    else unresolved.push(`${c.resource}.${c.group}`);
  }
  return { claims: out, unresolved };
}

/** The APIResourceSchema of a blueprint's instance CRD (same names, scope and versions). */
export function apiResourceSchema(bp: PublishedBlueprint): KubeObject {
  const crd = bp.crd.spec as {
    group: string;
    names: Record<string, unknown>;
    scope: string;
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema?: { openAPIV3Schema?: unknown };
      subresources?: unknown;
      additionalPrinterColumns?: unknown;
    }[];
  };
  return {
    apiVersion: APIS_KCP_V1ALPHA1,
    kind: 'APIResourceSchema',
    metadata: {
      name: schemaName(bp),
      labels: { 'app.kubernetes.io/managed-by': 'kgraph', [LABEL_BLUEPRINT]: safeLabelValue(bp.exportName) },
      annotations: { [ANNOTATION_BLUEPRINT]: bp.name, [ANNOTATION_SPEC_HASH]: bp.specHash },
    },
    spec: {
      group: crd.group,
      names: crd.names,
      scope: crd.scope,
      versions: crd.versions.map((v) => ({
        name: v.name,
        served: v.served,
        storage: v.storage,
        schema: v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        ...(v.subresources ? { subresources: v.subresources } : {}),
        ...(v.additionalPrinterColumns ? { additionalPrinterColumns: v.additionalPrinterColumns } : {}),
      })),
    },
  };
}

/** The APIExport of a blueprint: its one resource and its claims (sorted as derived). */
export function apiExport(bp: PublishedBlueprint, claims: readonly KcpClaim[]): KubeObject {
  const permissionClaims: KcpPermissionClaim[] = claims.map((c) => ({
    group: c.group,
    resource: c.resource,
    verbs: [...c.verbs],
    identityHash: c.identityHash,
  }));
  return {
    apiVersion: APIS_KCP_V1ALPHA2,
    kind: 'APIExport',
    metadata: {
      name: bp.exportName,
      labels: { 'app.kubernetes.io/managed-by': 'kgraph' },
      annotations: { [ANNOTATION_BLUEPRINT]: bp.name, [ANNOTATION_SPEC_HASH]: bp.specHash },
    },
    spec: {
      resources: [{ name: bp.plural, group: bp.group, schema: schemaName(bp), storage: { crd: {} } }],
      permissionClaims,
    },
  };
}

/** The claims as the blueprint status shows them on kcp (with identity hashes). */
export function statusClaims(claims: readonly KcpClaim[]): Record<string, unknown>[] {
  return claims.map((c) => ({ ...publishedClaim(c), identityHash: c.identityHash }));
}

export interface KcpPublication {
  claims: KcpClaim[];
  schema: string;
  identityHash: string;
}

/** Publishes (or republishes) one blueprint into the provider workspace. */
export async function publishToKcp(
  provider: RestClient,
  bp: PublishedBlueprint,
): Promise<{ answer: PublishAnswer; publication?: KcpPublication }> {
  const { claims, unresolved } = await resolveIdentities(provider, bp.claims);
  if (unresolved.length > 0) {
    return {
      answer: {
        refused: {
          reason: 'ClaimIdentityUnresolved',
          message: `no APIBinding in the provider workspace binds ${unresolved.join(', ')}: bind the APIExport that owns ${unresolved.length > 1 ? 'them' : 'it'} there, so the claim's identity hash resolves`,
        },
      },
    };
  }
  const existing = await provider.getOrUndefined({
    apiVersion: APIS_KCP_V1ALPHA2,
    plural: 'apiexports',
    name: bp.exportName,
  });
  const owner = existing?.metadata.annotations?.[ANNOTATION_BLUEPRINT];
  if (existing && owner !== bp.name) {
    return {
      answer: {
        refused: {
          reason: 'ExportConflict',
          message: `${kubectlName({ apiVersion: APIS_KCP_V1ALPHA2, kind: 'APIExport', name: bp.exportName })} exists and is not published for blueprint ${bp.name}${owner ? ` (it is ${owner}'s)` : ''}`,
        },
      },
    };
  }
  const schema = apiResourceSchema(bp);
  try {
    await provider.create(schema);
  } catch (e) {
    if (!(isApiError(e) && e.code === 409)) throw e; // schemas are immutable: one per spec hash
  }
  const exp = await provider.apply(apiExport(bp, claims), { fieldManager: REGISTRAR_MANAGER, force: true });
  const identityHash = ((exp.status ?? {}) as { identityHash?: string }).identityHash ?? '';
  return {
    answer: {
      status: {
        claims: statusClaims(claims),
        ...(identityHash ? { identityHash } : {}),
        apiResourceSchema: schema.metadata.name,
      },
    },
    publication: { claims, schema: schema.metadata.name ?? '', identityHash },
  };
}

/** Deletes a blueprint's APIExport and every APIResourceSchema published for it (withdrawal, opt-in). */
export async function unpublishFromKcp(
  provider: RestClient,
  exportName: string,
  blueprint: string,
): Promise<void> {
  const exp = await provider.getOrUndefined({
    apiVersion: APIS_KCP_V1ALPHA2,
    plural: 'apiexports',
    name: exportName,
  });
  if (exp?.metadata.annotations?.[ANNOTATION_BLUEPRINT] === blueprint)
    await provider.delete({ apiVersion: APIS_KCP_V1ALPHA2, plural: 'apiexports', name: exportName });
  const { items } = await provider.listAll(
    { apiVersion: APIS_KCP_V1ALPHA1, plural: 'apiresourceschemas' },
    { labelSelector: `${LABEL_BLUEPRINT}=${safeLabelValue(exportName)}` },
  );
  for (const s of items)
    if (s.metadata.annotations?.[ANNOTATION_BLUEPRINT] === blueprint)
      await provider.delete({
        apiVersion: APIS_KCP_V1ALPHA1,
        plural: 'apiresourceschemas',
        name: s.metadata.name ?? '',
      });
}
