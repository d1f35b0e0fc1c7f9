/**
 * Names of the multi-plane ("krop") API (design/planes.md §2–§3, §9, §17): group, kinds, labels, annotations,
 * finalizers, field managers and timings. Pure constants; the naming functions are in naming.ts.
 */

export const KROP_GROUP = 'krop.opendefense.cloud';
export const KROP_API_VERSION = `${KROP_GROUP}/v1alpha1`;

export const BLUEPRINT_KIND = 'ResourceGraphDefinition';
export const BLUEPRINT_PLURAL = 'resourcegraphdefinitions';
export const BLUEPRINT_CRD_NAME = `${BLUEPRINT_PLURAL}.${KROP_GROUP}`;

export const CONSUMER_KIND = 'ConsumerCluster';
export const CONSUMER_PLURAL = 'consumerclusters';
export const CONSUMER_CRD_NAME = `${CONSUMER_PLURAL}.${KROP_GROUP}`;

/** design/planes.md §9: labels on every written child and liveness record. */
export const LABEL_INSTANCE_UID = `${KROP_GROUP}/instance-uid`;
export const LABEL_CONSUMER_CLUSTER = `${KROP_GROUP}/consumer-cluster`;
export const LABEL_BLUEPRINT = `${KROP_GROUP}/blueprint`;
export const LABEL_LIVENESS = `${KROP_GROUP}/liveness`;

/** design/planes.md §8: the runtime-only annotation on the instance copy (same key as the label). */
export const ANNOTATION_CONSUMER_CLUSTER = LABEL_CONSUMER_CLUSTER;
/** design/planes.md §3.3.3: annotations on the instance CRD in a consumer cluster. */
export const ANNOTATION_BLUEPRINT = LABEL_BLUEPRINT;
export const ANNOTATION_SPEC_HASH = `${KROP_GROUP}/spec-hash`;

export const FINALIZER_INSTANCE = `${KROP_GROUP}/gc`;
export const FINALIZER_BLUEPRINT = `${KROP_GROUP}/registrar`;
export const FINALIZER_CLUSTER = `${KROP_GROUP}/cluster-cleanup`;

/** design/planes.md §17: field managers. */
export const CHILD_MANAGER = 'krop-controller';
export const REGISTRAR_MANAGER = 'krop-registrar';

/** design/planes.md §17: timings, overridable per controller (tests shorten them). */
export interface PlaneTimings {
  heartbeatMs: number;
  resyncMs: number;
  sweepIntervalMs: number;
  staleAfterMs: number;
  /** Nothing is swept until this long after start. */
  startupGraceMs: number;
  ssarTtlMs: number;
  crdWaitMs: number;
  /** design/planes.md §3.3.4: how often each connected consumer cluster is probed (GET /readyz). */
  livenessMs: number;
}

export const DEFAULT_TIMINGS: PlaneTimings = {
  heartbeatMs: 30_000,
  resyncMs: 300_000,
  sweepIntervalMs: 60_000,
  staleAfterMs: 300_000,
  startupGraceMs: 300_000,
  ssarTtlMs: 30_000,
  crdWaitMs: 30_000,
  livenessMs: 10_000,
};

/** Writable consumer children and read-only external refs (design/planes.md §10.1). */
export const WRITE_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;
export const READ_VERBS = ['get', 'list', 'watch'] as const;
