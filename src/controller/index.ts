/**
 * The controllers' public surface for the CLI, the UI and embedders: the manager that runs them, the
 * CRDs they install, and the shared vocabulary (names, conditions, inventory). Layout: README.md.
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
export * from './graph/names.ts';
export { GraphReconciler } from './graph/reconciler.ts';
export type { GraphStatus } from './graph/status.ts';
export { type LeaderElectionOptions, LeaderElector } from './host/leaderElection.ts';
export { Manager, type ManagerOptions, type Runnable } from './host/manager.ts';
export { serve } from './host/probes.ts';
