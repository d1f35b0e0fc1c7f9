/**
 * The controllers' public surface: the Graph controller (graph/: watches, work queue, one reconcile per
 * Graph), the machinery every controller shares (core/: names, conditions, the compiler cache, metrics),
 * and the process host (host/: leader election, the probes server). The RGD and planes controllers live
 * in rgd/ and planes/ (README.md).
 */
export { appliedFieldsAgree } from './core/applyNeeded.ts';
export type { Condition } from './core/conditions.ts';
export { established, waitForCrd } from './core/crdReady.ts';
export { type CompileOutcome, GraphCompiler } from './core/graphCompiler.ts';
export type { Contribution, ManagedResource } from './core/inventory.ts';
export { ControllerMetrics } from './core/metrics.ts';
export * from './core/names.ts';
export type { ReconcileOutcome } from './core/outcome.ts';
export { type ControllerOptions, GraphController } from './graph/controller.ts';
export { EXACTLY_ONE_KIND_MESSAGE, graphCrd, installGraphCrd } from './graph/crd.ts';
export { GraphReconciler } from './graph/reconciler.ts';
export type { GraphStatus } from './graph/status.ts';
export { type LeaderElectionOptions, LeaderElector } from './host/leaderElection.ts';
export { serve } from './host/probes.ts';
