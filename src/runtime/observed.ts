/**
 * The engine's view of the cluster: observed objects, looked up by identity or listed by selector,
 * and which types the cluster serves (for dynamic nodes, design/graph.md §15). The controller
 * implements this over its informer caches; `observedFromObjects` builds one from a list of objects
 * (render, tests). The engine only reads through this interface, so it stays free of I/O.
 */
import { type LabelSelector, matchesSelector } from './selector.ts';

/** A Kubernetes object as JSON (numbers may be BigInt when it came from an earlier rendering). */
export type KubeObject = Record<string, unknown>;

export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
  name: string;
}

export interface TypeInfo {
  apiVersion: string;
  kind: string;
  /** Whether objects of the type live in namespaces. */
  namespaced: boolean;
}

export interface ObservedState {
  /**
   * The object with this identity, if it exists. `reader` is the dotted path of the node whose
   * evaluation reads it (the controller names it when the read is not authorised).
   */
  get(id: ObjectIdentity, reader?: string): KubeObject | undefined;
  /**
   * Objects of a type matching a selector, in a stable order. `namespace` undefined lists across all
   * namespaces (design/graph.md §3.2).
   */
  list(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    selector: LabelSelector,
    reader?: string,
  ): KubeObject[];
  /**
   * Whether the cluster serves the type: the info when it does, `undefined` when it does not (yet).
   */
  servedType(apiVersion: string, kind: string): TypeInfo | undefined;
}

export interface InMemoryStateOptions {
  /** Types the cluster serves in addition to those of the objects and of CRDs found among them. */
  types?: readonly TypeInfo[];
  /**
   * When true, every type is considered served (namespaced unless listed otherwise). Used when no type
   * information is available and dynamic nodes should not be held.
   */
  assumeAllTypesServed?: boolean;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function meta(obj: KubeObject): Record<string, unknown> {
  const m = obj.metadata;
  return typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : {};
}

/** The identity of an object, or undefined when apiVersion, kind or metadata.name is missing. */
export function identityOf(obj: KubeObject): ObjectIdentity | undefined {
  const apiVersion = str(obj.apiVersion);
  const kind = str(obj.kind);
  const m = meta(obj);
  const name = str(m.name);
  if (apiVersion === undefined || kind === undefined || name === undefined) return undefined;
  const namespace = str(m.namespace);
  return namespace === undefined || namespace === ''
    ? { apiVersion, kind, name }
    : { apiVersion, kind, namespace, name };
}

/** `apiVersion/kind/namespace/name`, the key used to compare identities. */
export function identityKey(id: ObjectIdentity): string {
  return `${id.apiVersion}/${id.kind}/${id.namespace ?? ''}/${id.name}`;
}

export function typeKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

function labelsOf(obj: KubeObject): Record<string, string> {
  const l = meta(obj).labels;
  const out: Record<string, string> = {};
  if (typeof l === 'object' && l !== null && !Array.isArray(l)) {
    for (const [k, v] of Object.entries(l)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/** Types defined by CustomResourceDefinition objects (every served version). */
function typesFromCrd(obj: KubeObject): TypeInfo[] {
  if (obj.kind !== 'CustomResourceDefinition') return [];
  const spec = obj.spec as Record<string, unknown> | undefined;
  if (typeof spec !== 'object' || spec === null) return [];
  const group = str(spec.group);
  const names = spec.names as Record<string, unknown> | undefined;
  const kind = names ? str(names.kind) : undefined;
  if (group === undefined || kind === undefined) return [];
  const namespaced = spec.scope !== 'Cluster';
  const versions = Array.isArray(spec.versions) ? (spec.versions as Record<string, unknown>[]) : [];
  return versions
    .filter((v) => v && v.served !== false && typeof v.name === 'string')
    .map((v) => ({ apiVersion: `${group}/${v.name as string}`, kind, namespaced }));
}

/**
 * An ObservedState over a fixed list of objects. Later objects with the same identity replace earlier
 * ones (so a `--state` file can override an echoed desired object). List order is insertion order.
 */
export function observedFromObjects(
  objects: readonly KubeObject[],
  options: InMemoryStateOptions = {},
): ObservedState {
  const byKey = new Map<string, KubeObject>();
  const types = new Map<string, TypeInfo>();
  for (const t of options.types ?? []) types.set(typeKey(t.apiVersion, t.kind), t);
  for (const obj of objects) {
    const id = identityOf(obj);
    if (id === undefined) continue;
    byKey.set(identityKey(id), obj);
    for (const t of typesFromCrd(obj)) types.set(typeKey(t.apiVersion, t.kind), t);
  }
  for (const obj of byKey.values()) {
    const id = identityOf(obj)!;
    const k = typeKey(id.apiVersion, id.kind);
    if (!types.has(k))
      types.set(k, { apiVersion: id.apiVersion, kind: id.kind, namespaced: id.namespace !== undefined });
  }
  return {
    get(id) {
      return byKey.get(identityKey(id));
    },
    list(apiVersion, kind, namespace, selector) {
      const out: KubeObject[] = [];
      for (const obj of byKey.values()) {
        if (obj.apiVersion !== apiVersion || obj.kind !== kind) continue;
        if (namespace !== undefined && str(meta(obj).namespace) !== namespace) continue;
        if (matchesSelector(selector, labelsOf(obj))) out.push(obj);
      }
      return out;
    },
    servedType(apiVersion, kind) {
      const t = types.get(typeKey(apiVersion, kind));
      if (t !== undefined) return t;
      return options.assumeAllTypesServed === true ? { apiVersion, kind, namespaced: true } : undefined;
    },
  };
}

/**
 * Wraps an ObservedState so that types it does not know are looked up in a fallback (e.g. the
 * built-in kinds and CRD files known to the compiler), as a cluster would serve them.
 */
export function withServedTypes(
  observed: ObservedState,
  lookup: (apiVersion: string, kind: string) => TypeInfo | undefined,
): ObservedState {
  return {
    get: (id, reader) => observed.get(id, reader),
    list: (apiVersion, kind, namespace, selector, reader) =>
      observed.list(apiVersion, kind, namespace, selector, reader),
    servedType: (apiVersion, kind) => observed.servedType(apiVersion, kind) ?? lookup(apiVersion, kind),
  };
}
