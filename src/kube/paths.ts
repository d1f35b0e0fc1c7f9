/**
 * REST path building. Kept pure and separate from the client so the exact
 * URL rules (core group under /api, named groups under /apis, namespaced vs
 * cluster-scoped, subresources, query encoding) are unit-tested without a server.
 */

export interface GroupVersion {
  /** '' for the core group. */
  group: string;
  version: string;
}

/** `v1` → core group; `apps/v1` → group `apps`. */
export function parseApiVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function formatApiVersion(gv: GroupVersion): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(apiVersion: string): string {
  const { group, version } = parseApiVersion(apiVersion);
  if (!version) throw new Error(`invalid apiVersion ${JSON.stringify(apiVersion)}`);
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** A resource addressed by its plural name (already resolved). */
export interface ResourcePathParts {
  apiVersion: string;
  plural: string;
  /** Omit for cluster-scoped resources, or to address all namespaces in a list/watch. */
  namespace?: string | undefined;
  name?: string | undefined;
  /** `status`, `scale`, … (requires name). */
  subresource?: string | undefined;
}

function segment(s: string, what: string): string {
  if (s === '' || s === '.' || s === '..' || s.includes('/')) {
    throw new Error(`invalid ${what} ${JSON.stringify(s)} in a resource path`);
  }
  return encodeURIComponent(s);
}

export function resourcePath(p: ResourcePathParts): string {
  let path = groupVersionPath(p.apiVersion);
  if (p.namespace !== undefined && p.namespace !== '') {
    path += `/namespaces/${segment(p.namespace, 'namespace')}`;
  }
  path += `/${segment(p.plural, 'resource')}`;
  if (p.name !== undefined && p.name !== '') {
    path += `/${segment(p.name, 'name')}`;
  }
  if (p.subresource !== undefined && p.subresource !== '') {
    if (p.name === undefined || p.name === '') throw new Error('a subresource path needs a name');
    path += `/${segment(p.subresource, 'subresource')}`;
  }
  return path;
}

export type QueryValue = string | number | boolean | undefined | null;

/** `?a=1&b=x` with undefined/null values dropped; '' when nothing remains. Keys are kept in insertion order. */
export function queryString(params: Record<string, QueryValue> | undefined): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/** Label selector from a map (`a=b,c=d`), or passes a string through. */
export function labelSelector(sel: string | Record<string, string> | undefined): string | undefined {
  if (sel === undefined) return undefined;
  if (typeof sel === 'string') return sel;
  const parts = Object.entries(sel).map(([k, v]) => `${k}=${v}`);
  return parts.length === 0 ? undefined : parts.join(',');
}

/** `namespace/name` or `name` — the cache and queue key of an object. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function splitObjectKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf('/');
  if (slash < 0) return { namespace: undefined, name: key };
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
