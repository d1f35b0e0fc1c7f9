/**
 * The `kro.run/finalizer` on ResourceGraphDefinitions (design/rgd.md §19.6): added to every RGD the
 * controller reconciles, as kro does, and removed only once the RGD's instances are no longer served.
 * JSON patches guarded by a `test` of the list, so a concurrent edit of the finalizers is never lost: a
 * failed test fails the pass, which is retried on a fresh copy.
 */
import { isNotFound, type KubeObject, type RestClient } from '../../kube/index.ts';
import { INSTANCE_FINALIZER } from './names.ts';

/** The RGD finalizer: the same name kro puts on RGDs and instances. */
export const RGD_FINALIZER = INSTANCE_FINALIZER;

function target(rgd: KubeObject) {
  return { apiVersion: rgd.apiVersion, kind: rgd.kind, name: rgd.metadata.name ?? '' };
}

/** Guards against a stale copy: the patch fails when the list changed since `rgd` was read. */
function listTest(rgd: KubeObject): { op: 'test'; path: string; value: unknown } {
  return { op: 'test', path: '/metadata/finalizers', value: rgd.metadata.finalizers ?? null };
}

/** The RGD with the finalizer (patched when missing); undefined when the RGD is gone. */
export async function ensureRgdFinalizer(
  client: RestClient,
  rgd: KubeObject,
): Promise<KubeObject | undefined> {
  const finalizers = rgd.metadata.finalizers;
  if (finalizers?.includes(RGD_FINALIZER)) return rgd;
  const patch = finalizers
    ? [listTest(rgd), { op: 'add', path: '/metadata/finalizers/-', value: RGD_FINALIZER }]
    : [{ op: 'add', path: '/metadata/finalizers', value: [RGD_FINALIZER] }];
  try {
    return await client.patch(target(rgd), patch, { type: 'json' });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Drops the finalizer from a deleting RGD; a no-op when it is not there or the RGD is gone. */
export async function removeRgdFinalizer(client: RestClient, rgd: KubeObject): Promise<void> {
  const finalizers = rgd.metadata.finalizers ?? [];
  const at = finalizers.indexOf(RGD_FINALIZER);
  if (at < 0) return;
  try {
    await client.patch(target(rgd), [listTest(rgd), { op: 'remove', path: `/metadata/finalizers/${at}` }], {
      type: 'json',
    });
  } catch (e) {
    // Gone already. A failed test (the list changed) throws: the pass is retried on a fresh copy.
    if (isNotFound(e)) return;
    throw e;
  }
}
