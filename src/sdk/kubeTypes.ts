/**
 * Builder arguments typed with the Kubernetes API types (`kubernetes-types`), so an
 * editor completes fields and `tsc` rejects `replicas: 'two'`. What the SDK accepts beyond the API
 * types is written into them here: a string may carry dependency context (`Str`), any value may be
 * deferred (`lazy(() => …)`), and the SDK's shorthands (a pod's `serviceAccount` as a resource, a
 * workload's selector derived from the pod labels, a StatefulSet's `serviceName` from its headless
 * Service) loosen the fields they replace.
 */
import type { DaemonSetSpec, DeploymentSpec, StatefulSetSpec } from 'kubernetes-types/apps/v1.js';
import type { CronJobSpec, JobSpec } from 'kubernetes-types/batch/v1.js';
import type { PodSpec, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { Lazy, Str } from './context.ts';

/** A value of API type `T` as a builder takes it. */
export type Authored<T> =
  | Lazy<unknown>
  // null is "absent" to the SDK (normalize drops it), so any field may be null.
  | null
  | (T extends string
      ? Str
      : T extends number | boolean | null | undefined
        ? T
        : T extends readonly (infer E)[]
          ? readonly Authored<E>[]
          : T extends object
            ? AuthoredObject<T>
            : T);

/** An object of API type `T` (itself not lazy: its fields may be). */
export type AuthoredObject<T> = { [K in keyof T]: Authored<T[K]> };

/** A pod spec with the SDK's `serviceAccount` shorthand: a ServiceAccount resource (or its name). */
export type AuthoredPodSpec = Omit<AuthoredObject<PodSpec>, 'serviceAccount'> & { serviceAccount?: unknown };
export type AuthoredPodTemplate = Omit<AuthoredObject<PodTemplateSpec>, 'spec'> & { spec?: AuthoredPodSpec };

/** A workload spec: the pod template with the shorthands, and a selector the SDK can derive. */
type WorkloadSpec<S> = Omit<AuthoredObject<S>, 'selector' | 'template'> & {
  selector?: Authored<LabelSelector>;
  template: AuthoredPodTemplate;
};

export type DeploymentArgsSpec = WorkloadSpec<DeploymentSpec>;
export type StatefulSetArgsSpec = Omit<WorkloadSpec<StatefulSetSpec>, 'serviceName'> & {
  serviceName?: Str;
  /** The SDK's shorthand: the headless Service to create for this StatefulSet (statefulSetService.ts). */
  headlessService?: unknown;
};
export type DaemonSetArgsSpec = WorkloadSpec<DaemonSetSpec>;
export type JobArgsSpec = Omit<AuthoredObject<JobSpec>, 'template' | 'selector'> & {
  selector?: Authored<LabelSelector>;
  template: AuthoredPodTemplate;
};
export type CronJobArgsSpec = Omit<AuthoredObject<CronJobSpec>, 'jobTemplate'> & {
  jobTemplate: { metadata?: Authored<PodTemplateSpec['metadata']>; spec: JobArgsSpec };
};
