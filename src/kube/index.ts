/**
 * The public surface of the kube layer. Everything that talks to an API server
 * goes through here; nothing else in kgraph imports client-node except for `KubeConfig`.
 */

export * from './access.ts';
export * from './backoff.ts';
export * from './crdWatch.ts';
export * from './discovery.ts';
export * from './errors.ts';
export * from './informer.ts';
export * from './informerSet.ts';
export * from './managedFields.ts';
export * from './metrics.ts';
export * from './openapi.ts';
export * from './paths.ts';
export * from './queue.ts';
export * from './rest.ts';
export * from './types.ts';
export * from './watch.ts';
