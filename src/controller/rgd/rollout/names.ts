/**
 * Names of progressive rollouts (design/rgd.md §19.8): the GraphRollout API under kgraph's own group, the
 * field manager its assignments are written with, and the annotation that dates an assignment. Pure.
 */
export const ROLLOUT_GROUP = 'kgraph.dev';
export const ROLLOUT_API_VERSION = `${ROLLOUT_GROUP}/v1alpha1`;
export const ROLLOUT_KIND = 'GraphRollout';
export const ROLLOUT_PLURAL = 'graphrollouts';
export const ROLLOUT_CRD_NAME = `${ROLLOUT_PLURAL}.${ROLLOUT_GROUP}`;
/** The field manager of a rollout's writes: the instances' assignment annotations and its own status. */
export const ROLLOUT_MANAGER = 'kgraph.dev/rollout';
/** When the rollout assigned the instance its revision (the progress deadline counts from it). */
export const ANNOTATION_ASSIGNED_AT = 'kgraph.dev/rollout-assigned-at';
