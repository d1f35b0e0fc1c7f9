/**
 * Local control planes: the starters of the processes an API server runs in on this machine, kept apart from
 * the client (`kube/`) as controller-runtime keeps pkg/envtest apart from pkg/client. `localControlPlane.ts`
 * runs tools/kube-testenv (the test harness's plane, one per run), `devCluster.ts` the persistent one of
 * `kgraph cluster up`, `kcpControlPlane.ts` a local kcp; `childProcess.ts` is what they share. Nothing here
 * sends API requests but kcp's workspace set-up, which goes through the REST client.
 */

export * from './childProcess.ts';
export * from './devCluster.ts';
export * from './freePort.ts';
export * from './kcpControlPlane.ts';
export * from './localControlPlane.ts';
