/**
 * The Graph controller's public surface: the controller (watches, work queue, one reconcile per Graph),
 * its reconciler and compiler cache, the Graph CRD, leader election, metrics and the probes server. The
 * RGD and planes controllers live in rgd/ and planes/ over the shared machinery of core/ (README.md).
 */
export { type ControllerOptions, GraphController } from './controller.ts';
export { EXACTLY_ONE_KIND_MESSAGE, established, graphCrd, installGraphCrd, waitForCrd } from './crd.ts';
export { type CompileOutcome, GraphCompiler } from './engine.ts';
export { type LeaderElectionOptions, LeaderElector } from './leader.ts';
export { ControllerMetrics } from './metrics.ts';
export * from './names.ts';
export { appliedFieldsAgree } from './ownership.ts';
export { GraphReconciler, type ReconcileOutcome } from './reconciler.ts';
export { serve } from './server.ts';
export type { Condition, Contribution, GraphStatus, ManagedResource } from './status.ts';
