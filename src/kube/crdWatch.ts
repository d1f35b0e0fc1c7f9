/**
 * Keeps schema-derived caches honest: an informer on CustomResourceDefinitions
 * that invalidates discovery and the OpenAPI index whenever a CRD is added,
 * changed or removed, and tells the caller (the Graph controller re-compiles the
 * Graphs that use the kind — a CRD installed after the Graph must work).
 */

import { isRecord } from '../diag/record.ts';
import type { Discovery } from './discovery.ts';
import { Informer } from './informer.ts';
import type { OpenApiV3 } from './openapi.ts';
import type { RestClient } from './rest.ts';
import type { KubeObject } from './types.ts';

export type CrdChange = 'added' | 'updated' | 'deleted';

export interface CrdWatchOptions {
  discovery?: Discovery;
  openapi?: OpenApiV3;
  /** Called after the caches were invalidated. Not called for the initial list. */
  onChange?: (crd: KubeObject, change: CrdChange) => void;
  resyncMs?: number;
  onError?: (e: unknown) => void;
  /** What the cache keeps of each CRD (informer.ts `transform`); the apiVersions and names must stay. */
  transform?: (crd: KubeObject) => KubeObject;
}

/** The apiVersions (`group/version`) a CRD serves or served. */
export function crdApiVersions(crd: KubeObject): string[] {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const group = typeof spec.group === 'string' ? spec.group : '';
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  return versions.flatMap((v) =>
    isRecord(v) && typeof v.name === 'string' && group ? [`${group}/${v.name}`] : [],
  );
}

/**
 * A CRD as a cache that only reacts to CRD changes keeps it (a transform): names, group, scope, versions
 * without their schemas, status; no managedFields. A cluster's CRDs with their schemas are megabytes.
 */
export function crdWithoutSchemas(crd: KubeObject): KubeObject {
  delete crd.metadata.managedFields;
  const spec = isRecord(crd.spec) ? crd.spec : undefined;
  if (spec && Array.isArray(spec.versions)) {
    for (const v of spec.versions) if (isRecord(v)) delete v.schema;
  }
  return crd;
}

/** Starts the CRD informer; `stop()` it on shutdown. */
export function watchCRDs(client: RestClient, opts: CrdWatchOptions = {}): Informer {
  const inf = new Informer(client, {
    target: { apiVersion: 'apiextensions.k8s.io/v1', plural: 'customresourcedefinitions' },
    ...(opts.resyncMs !== undefined ? { resyncMs: opts.resyncMs } : {}),
    ...(opts.onError ? { onError: opts.onError } : {}),
    ...(opts.transform ? { transform: opts.transform } : {}),
  });
  const changed = (crd: KubeObject, change: CrdChange): void => {
    for (const av of crdApiVersions(crd)) opts.discovery?.invalidate(av);
    opts.openapi?.invalidate();
    if (inf.hasSynced()) opts.onChange?.(crd, change);
  };
  inf.addHandlers({
    add: (crd) => changed(crd, 'added'),
    update: (old, crd) => {
      if (old !== crd && old.metadata.resourceVersion !== crd.metadata.resourceVersion)
        changed(crd, 'updated');
    },
    delete: (crd) => changed(crd, 'deleted'),
  });
  inf.start();
  return inf;
}
