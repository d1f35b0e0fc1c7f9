/**
 * Helpers for the planes tests on a real kcp: what a provider and its consumers do in their workspaces
 * with kcp's own API (apis.kcp.io v1alpha2): export a type (APIResourceSchema + APIExport), bind an
 * export accepting or rejecting its claims, wait until a binding is Bound.
 */
import pino from 'pino';
import { KcpPlanesController } from '../../src/controller/planes/kcp/controller.ts';
import type { PlaneTimings } from '../../src/controller/planes/kropApi.ts';
import type { KubeObject } from '../../src/kube/index.ts';
import { APIS_KCP_V1ALPHA1, APIS_KCP_V1ALPHA2 } from '../../src/kube/kcp.ts';
import type { RestClient } from '../../src/kube/rest.ts';
import { eventually } from '../support/kube.ts';

export { eventually };

export const apply = (c: RestClient, o: KubeObject): Promise<KubeObject> =>
  c.apply(o, { fieldManager: 'test', force: true });

/** Exports a CRD's type from a workspace: its APIResourceSchema and an APIExport; returns the identity hash. */
export async function exportCrd(ws: RestClient, crd: KubeObject, exportName: string): Promise<string> {
  const spec = crd.spec as {
    group: string;
    names: Record<string, unknown>;
    scope: string;
    versions: { name: string; served: boolean; storage: boolean; schema: { openAPIV3Schema: unknown } }[];
  };
  const schemaName = `v1.${crd.metadata.name}`;
  await apply(ws, {
    apiVersion: APIS_KCP_V1ALPHA1,
    kind: 'APIResourceSchema',
    metadata: { name: schemaName },
    spec: {
      group: spec.group,
      names: spec.names,
      scope: spec.scope,
      versions: spec.versions.map((v) => ({ ...v, schema: v.schema.openAPIV3Schema })),
    },
  });
  await apply(ws, {
    apiVersion: APIS_KCP_V1ALPHA2,
    kind: 'APIExport',
    metadata: { name: exportName },
    spec: {
      resources: [
        {
          name: String(spec.names.plural),
          group: spec.group,
          schema: schemaName,
          storage: { crd: {} },
        },
      ],
    },
  });
  return eventually(`${exportName} identity`, async () => {
    const e = await ws.get({ apiVersion: APIS_KCP_V1ALPHA2, plural: 'apiexports', name: exportName });
    return ((e.status ?? {}) as { identityHash?: string }).identityHash || undefined;
  });
}

export interface ClaimDecision {
  group: string;
  resource: string;
  verbs: string[];
  identityHash?: string;
  state: 'Accepted' | 'Rejected';
}

/** Binds `path:name` in a workspace with the given claim decisions and waits until it is Bound. */
export async function bind(
  ws: RestClient,
  name: string,
  exportRef: { path: string; name: string },
  claims: ClaimDecision[] = [],
): Promise<KubeObject> {
  await apply(ws, {
    apiVersion: APIS_KCP_V1ALPHA2,
    kind: 'APIBinding',
    metadata: { name },
    spec: {
      reference: { export: exportRef },
      permissionClaims: claims.map((c) => ({
        group: c.group,
        resource: c.resource,
        verbs: c.verbs,
        identityHash: c.identityHash ?? '',
        selector: { matchAll: true },
        state: c.state,
      })),
    },
  });
  return eventually(
    `APIBinding ${name} Bound`,
    async () => {
      const b = await ws.get({ apiVersion: APIS_KCP_V1ALPHA2, plural: 'apibindings', name });
      return (b.status as { phase?: string } | undefined)?.phase === 'Bound' ? b : undefined;
    },
    60_000,
  );
}

export const FAST: Partial<PlaneTimings> = {
  heartbeatMs: 2_000,
  resyncMs: 3_000,
  ssarTtlMs: 300,
  sweepIntervalMs: 3_600_000,
  staleAfterMs: 3_600_000,
  startupGraceMs: 3_600_000,
};

export async function startKcpController(
  provider: RestClient,
  host: RestClient | undefined,
  timings: Partial<PlaneTimings> = {},
): Promise<KcpPlanesController> {
  const controller = new KcpPlanesController({
    provider,
    ...(host ? { host } : {}),
    namespace: 'kgraph-system',
    timings: { ...FAST, ...timings },
    log: process.env.KGRAPH_TEST_LOG_FILE
      ? pino(
          { level: process.env.KGRAPH_TEST_LOG_LEVEL ?? 'debug' },
          pino.destination(process.env.KGRAPH_TEST_LOG_FILE),
        )
      : pino({ level: 'silent' }),
  });
  await controller.start();
  return controller;
}

export interface Cond {
  type: string;
  status: string;
  reason: string;
  message: string;
}

export function cond(o: KubeObject | undefined, type: string): Cond | undefined {
  return (o?.status as { conditions?: Cond[] } | undefined)?.conditions?.find((c) => c.type === type);
}

export function getObj(c: RestClient, apiVersion: string, kind: string, name: string, namespace?: string) {
  return c.getOrUndefined({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) });
}
