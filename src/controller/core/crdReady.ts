/**
 * Waiting for a CustomResourceDefinition to be usable: Established, and its resource served by
 * discovery. Every controller that installs a CRD (the Graph CRD, the RGD CRD, generated instance
 * CRDs, the planes kinds) waits through this.
 */
import { isApiError, type KubeObject, type RestClient } from '../../kube/index.ts';

/** How a controller installs a CRD it owns. */
export interface InstallOptions {
  timeoutMs?: number;
  fieldManager?: string;
}

/** The CRD `name` once Established and its kind resolvable through discovery (invalidated first). */
export async function waitForCrd(client: RestClient, name: string, timeoutMs: number): Promise<KubeObject> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = await client.getOrUndefined({
      apiVersion: 'apiextensions.k8s.io/v1',
      plural: 'customresourcedefinitions',
      name,
    });
    if (crd && established(crd)) {
      const spec = crd.spec as { group: string; names: { kind: string }; versions: { name: string }[] };
      const version = spec.versions[0]?.name ?? 'v1';
      client.discovery.invalidate(`${spec.group}/${version}`);
      try {
        await client.discovery.resolveKind(`${spec.group}/${version}`, spec.names.kind);
        return crd;
      } catch (e) {
        if (isApiError(e) && e.code !== 404 && e.code !== 0) throw e;
        // NoKindMatchError: discovery does not serve it yet.
      }
    }
    if (Date.now() > deadline) throw new Error(`CRD ${name} was not established within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function established(crd: KubeObject): boolean {
  const status = crd.status as { conditions?: { type?: string; status?: string }[] } | undefined;
  return status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
}
