/**
 * How every command names a Kubernetes object to its user: as kubectl does (`kubectl get -o name`),
 * `TYPE/NAME` with the lower-case kind and the API group, the core group omitted —
 * `deployment.apps/web`, `configmap/settings`, `graph.kro.run/app` — and the namespace as kubectl
 * shows it: a NAMESPACE column in a table, or `-n ns` after the name in running text, so a line can be
 * pasted after `kubectl get`. One function for `up`, `get`, `deploy` and the rest;
 * it lives here, in the layer every other may import, because deploy's progress and plan need it too.
 */

/** What names an object: its apiVersion (`group/version`, or `version` for the core group), kind and name. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
}

/** The API group of an apiVersion: `apps/v1` → `apps`, `v1` → `` (core). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** kubectl's resource type for a kind: `deployment.apps`, `configmap`, `graph.kro.run`. */
export function kubectlType(ref: Pick<ObjectRef, 'apiVersion' | 'kind'>): string {
  const group = groupOf(ref.apiVersion);
  return `${ref.kind.toLowerCase()}${group ? `.${group}` : ''}`;
}

/** `deployment.apps/web`: the object without its namespace (for a NAMESPACE column, or a known context). */
export function kubectlName(ref: ObjectRef): string {
  return `${kubectlType(ref)}/${ref.name}`;
}

/**
 * `deployment.apps/web -n orders`: the object in running text. The namespace is left out for a
 * cluster-scoped object, and when it is `context` (the namespace the surrounding text is already in,
 * as `kubectl -n ns get …` prints no namespace).
 */
export function kubectlNameIn(ref: ObjectRef, context?: string): string {
  const ns = ref.namespace && ref.namespace !== context ? ` -n ${ref.namespace}` : '';
  return `${kubectlName(ref)}${ns}`;
}

/**
 * A table as kubectl prints one: upper-case headers, columns padded to their widest cell and two
 * spaces apart, no trailing spaces. `indent` starts every line.
 */
export function kubectlTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  indent = '',
): string[] {
  const all = [headers.map((h) => h.toUpperCase()), ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map(
    (r) => `${indent}${r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c)).join('  ')}`,
  );
}

/** The NAMESPACE cell of an object: kubectl leaves it empty for a cluster-scoped one. */
export const namespaceCell = (ref: Pick<ObjectRef, 'namespace'>): string => ref.namespace ?? '';
