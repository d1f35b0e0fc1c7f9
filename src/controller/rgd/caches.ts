/**
 * What the RGD controller's informer caches keep of each object: only what their
 * readers use. Every transform changes the object in place (slim.ts) and returns it.
 *
 * - RGDs, GraphRevisions, GraphRollouts: no managedFields (their status is written forced; no reader
 *   looks at field ownership).
 * - Instances: only the parent manager's managedFields entry (`ensureParent` compares its own applied
 *   metadata with it); status is written forced and compared by value.
 * - Children (and externalRefs, the one WatchSet): only `kro.run/applyset`'s entry, what the no-op
 *   apply check compares (core/apply.ts `needsApply` without apply memory). Expressions reading
 *   `metadata.managedFields` of a child or of `schema` see only those entries.
 * - CRDs: a CRD an RGD generated (labelled with its RGD's name) keeps its schema and the controller's
 *   managedFields entry (the breaking-change check and the no-op apply compare them); any other CRD
 *   keeps its names, versions, scope and status without the schemas and managedFields: the registrar
 *   only asks whether it exists, who owns it, and which apiVersions it serves (crdWatch.ts).
 */
import { dropManagedFields, type KubeObject, keepManagedFields } from '../../kube/index.ts';
import { CONTROLLER_MANAGER } from '../core/names.ts';
import { APPLYSET_MANAGER, LABEL_RGD_NAME, PARENT_MANAGER } from './names.ts';

/** Managers whose managedFields entries the children caches keep. */
export const isChildCacheManager = (manager: string): boolean => manager === APPLYSET_MANAGER;

const keepControllerEntry = keepManagedFields((m) => m === CONTROLLER_MANAGER);

/** A CRD as the RGD controller caches it (see above). */
export function slimCrd(crd: KubeObject): KubeObject {
  if (crd.metadata?.labels?.[LABEL_RGD_NAME] !== undefined) return keepControllerEntry(crd);
  dropManagedFields(crd);
  const versions = (crd.spec as { versions?: unknown } | undefined)?.versions;
  if (Array.isArray(versions)) {
    for (const v of versions) {
      if (v && typeof v === 'object' && 'schema' in v) delete (v as { schema?: unknown }).schema;
    }
  }
  return crd;
}

/** The transform of each of the RGD controller's caches (also what bench/rgd-memory.bench.ts reports). */
export const rgdCacheTransforms = {
  rgd: dropManagedFields,
  crd: slimCrd,
  instance: keepManagedFields((m) => m === PARENT_MANAGER),
  child: keepManagedFields(isChildCacheManager),
  // GraphRevisions (instances resolve through them) and GraphRollouts: read by value, written forced.
  graphRevision: dropManagedFields,
  graphRollout: dropManagedFields,
} as const;
