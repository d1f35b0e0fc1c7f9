/**
 * The public surface of the kube layer. Everything that talks to an API server
 * goes through here. kgraph reads kubeconfigs itself (kubeconfig.ts); client-node is imported
 * only for exec and auth-provider plugins and proxies, on first use.
 *
 *   const client = new RestClient(kc);                       // rest.ts: raw JSON, counters, ApiError
 *   await client.apply(obj, { fieldManager: 'm' });           // SSA; 409 → e.conflictingManagers
 *   const asSA = client.withImpersonation(serviceAccountImpersonation(ns, sa));
 *   const inf = new Informer(client, { target: { apiVersion: 'v1', kind: 'ConfigMap' } });
 *   const q = new WorkQueue<string>();                        // dedup + 1 s…5 min per-key backoff
 *   applyWouldChange(desired, inf.get(ns, name), 'm');        // skip no-op applies
 */

export * from './access.ts';
export * from './applyExisting.ts';
export * from './backoff.ts';
export * from './connectivity.ts';
export * from './crdWatch.ts';
export * from './discovery.ts';
export * from './errors.ts';
export * from './fence.ts';
export * from './informer.ts';
export * from './informerSet.ts';
export * from './liveSchema.ts';
export * from './managedFields.ts';
export * from './metrics.ts';
export * from './openapi.ts';
export * from './paths.ts';
export * from './queue.ts';
export * from './rest.ts';
export * from './slim.ts';
export * from './types.ts';
export * from './watch.ts';
