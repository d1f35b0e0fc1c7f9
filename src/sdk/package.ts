/**
 * Packages: `definePackage`, the lazy `self` fixpoint over part thunks, and the package-level out view
 * consumers receive (`deps.<name>`).
 */

import { didYouMean } from '../diag/suggest.ts';
import { GRAPH_RESERVED, RGD_RESERVED } from '../graph/reserved.ts';
import type { Build } from './build.ts';
import type { AvailabilityLevel, InstanceDef, ResolvedCluster } from './cluster.ts';
import { SdkCode, SdkError } from './errors.ts';
import { PendingPartUse, pendingPart } from './pendingPart.ts';
import { type AnyResource, type BaseOut, isResource, nodeOf, type Resource } from './resource.ts';
import { type CrdOut, makeScope, namespaceResource, type Scope } from './scope.ts';
import { isPlainObject } from './values.ts';

/** The consumer view of a package instance (design/sdk.md §A9). Out keys are promoted to the top level. */
export interface PackageView<RootOut extends Record<string, unknown> = Record<string, unknown>> {
  readonly _type: 'kix.packageView';
  readonly _packageInstance: string;
  readonly _meta: { readonly namespaceName: string; readonly instanceName: string };
  readonly root: unknown;
  readonly out: Readonly<BaseOut & RootOut>;
  /** The instance's parts. */
  readonly raw: Readonly<Record<string, unknown>>;
  readonly crds: Readonly<Record<string, Resource<CrdOut>>>;
  readonly [key: string]: unknown;
}

/** What a package's `build` receives for one instance. */
export interface BuildArgs<Parts, Deps> {
  /** The builders, in the instance's namespace. */
  scope: Scope;
  /**
   * Lazily forced parts: `self.x` builds part `x` at most once; a part that needs itself is a cycle
   * error naming the chain.
   */
  self: Parts;
  /** The views of the instances this one depends on (the instance's `deps` in the cluster definition). */
  deps: Deps;
  /** The instance's `config` from the cluster definition, as given. */
  config: unknown;
  /** The cluster's availability level. */
  availability: AvailabilityLevel;
  /** The resolved cluster definition (defaults applied). */
  cluster: ResolvedCluster;
}

/** A part is a value, a getter, or a zero-argument thunk returning the value. A part folder (a plain
 * object, e.g. `crds`) may hold thunks too. */
export type PartDefs<Parts> = { [K in keyof Parts]: Parts[K] | (() => Parts[K]) | FolderDefs<Parts[K]> };
export type FolderDefs<T> =
  T extends Record<string, unknown> ? { [M in keyof T]: T[M] | (() => T[M]) } : never;

/**
 * The `root` part: what dependents see. Its resource's `.out` (merged with `out`, whose values keep only
 * the context they carry) becomes the package view's `out`, promoted to the top level.
 */
export type Root = AnyResource | { resource: AnyResource; out?: Record<string, unknown> };

/** `definePackage`'s argument. */
export interface PackageDef<Parts extends Record<string, unknown>, Deps> {
  name: string;
  /**
   * Roles this package provides to the cluster (`dns`, `loadBalancer`): builders of other packages check
   * for them (a LoadBalancer Service needs a `loadBalancer` provider).
   * @default []
   */
  provides?: string[];
  /** Returns the parts (values or thunks); a part named `root` is what dependents see. */
  build(a: BuildArgs<Parts, Deps>): PartDefs<Parts>;
}

export interface Package {
  readonly _type: 'kix.package';
  readonly name: string;
  readonly provides: readonly string[];
  build(a: BuildArgs<Record<string, unknown>, Record<string, PackageView>>): Record<string, unknown>;
}

export function definePackage<Parts extends Record<string, unknown>, Deps = Record<string, PackageView>>(
  def: PackageDef<Parts, Deps>,
): Package {
  if (!def || typeof def.name !== 'string' || typeof def.build !== 'function') {
    throw new SdkError(SdkCode.packageDefinition, 'definePackage needs a name and a build function');
  }
  return {
    _type: 'kix.package',
    name: def.name,
    provides: [...(def.provides ?? [])],
    build: def.build as unknown as Package['build'],
  };
}

export function isPackage(v: unknown): v is Package {
  return typeof v === 'object' && v !== null && (v as { _type?: unknown })._type === 'kix.package';
}

/** Ids a generated Graph node may not take, in either a Graph or an RGD. */
const RESERVED_IDS: ReadonlySet<string> = new Set([...GRAPH_RESERVED, ...RGD_RESERVED]);

function nameByPart(build: Build, v: unknown, part: string): void {
  const node = nodeOf(v);
  if (!node || node.namedByPart || !/^[A-Za-z][A-Za-z0-9]*$/.test(part)) return;
  const id = RESERVED_IDS.has(part) ? `${part}Node` : part;
  if (build.graphIds.has(id)) return;
  build.graphIds.delete(node.graphId);
  build.graphIds.add(id);
  node.graphId = id;
  node.namedByPart = true;
}

/** Evaluates one instance: runs `build`, forces every part, returns the consumer view. */
export function evaluateInstance(
  build: Build,
  instanceName: string,
  inst: InstanceDef,
  deps: Record<string, PackageView>,
): PackageView {
  const scope = makeScope(build, {
    instanceName,
    namespaceName: inst.namespace,
    ...(inst.labelStyle ? { labelStyle: inst.labelStyle } : {}),
    ...(inst.selectorLabels ? { selectorLabels: inst.selectorLabels } : {}),
  });
  namespaceResource(build, inst.namespace);
  let defs: Record<string, unknown> | undefined;
  const values = new Map<string, unknown>();
  const state = new Map<string, 'forcing' | 'done'>();
  const stack: string[] = [];
  const force = (key: string): unknown => {
    if (!defs)
      throw new SdkError(SdkCode.packageDefinition, `self.${key} was read before build returned its parts`);
    if (state.get(key) === 'done') return values.get(key);
    if (state.get(key) === 'forcing') {
      // Re-entering a part under construction: a forward reference that only builders able to wait
      // accept (pendingPart.ts); any other use throws this cycle error.
      const path = [...stack.slice(stack.indexOf(key)), key].map((p) => `self.${p}`).join(' -> ');
      const message = `cycle in package ${inst.package.name} (instance ${instanceName}): ${path} (hint: use ${key}.rawSelector, lazy() or unsafeDiscardContext)`;
      return pendingPart(key, message, () => force(key));
    }
    const desc = Object.getOwnPropertyDescriptor(defs, key);
    if (!desc) return undefined;
    state.set(key, 'forcing');
    stack.push(key);
    const token = {};
    const outerPart = build.currentPart;
    build.currentPart = token;
    try {
      let v: unknown = desc.get ? desc.get.call(defs) : desc.value;
      if (typeof v === 'function' && v.length === 0 && !isResource(v)) v = (v as () => unknown)();
      if (isPlainObject(v) && !isResource(v) && key !== 'root') {
        const folder: Record<string, unknown> = {};
        for (const [k, f] of Object.entries(v)) {
          const fv = typeof f === 'function' && f.length === 0 ? (f as () => unknown)() : f;
          nameByPart(build, fv, `${key}${k.charAt(0).toUpperCase()}${k.slice(1)}`);
          folder[k] = fv;
        }
        v = folder;
      }
      nameByPart(build, v, key);
      values.set(key, v);
      state.set(key, 'done');
      return v;
    } catch (err) {
      state.delete(key);
      build.dropPart(token);
      // This part needs the very part that is reading it (`self.statefulSet` inside the headless Service
      // while the StatefulSet reads `self.headless`): give the reader a forward reference; this part is
      // evaluated again once the reader is done.
      if (err instanceof PendingPartUse && stack.length >= 2 && stack[stack.length - 2] === err.part) {
        return pendingPart(key, err.message, () => force(key));
      }
      throw err;
    } finally {
      stack.pop();
      build.currentPart = outerPart;
    }
  };
  const self = new Proxy({} as Record<string, unknown>, {
    get: (_t, key) => {
      if (typeof key !== 'string') return undefined;
      // A typo (`self.confg`) says which part is unknown and which exist, instead of an undefined that
      // fails later as "Cannot read properties of undefined". `then` is probed by await: not a part.
      if (defs && key !== 'then' && !Object.hasOwn(defs, key)) {
        const known = Object.keys(defs);
        throw new SdkError(
          SdkCode.unknownPart,
          `self.${key}: package ${inst.package.name} has no part "${key}"${didYouMean(key, known)}; its parts: ${known.join(', ') || '(none)'}`,
        );
      }
      return force(key);
    },
    has: (_t, key) => typeof key === 'string' && defs !== undefined && key in defs,
    ownKeys: () => (defs ? Object.keys(defs) : []),
    getOwnPropertyDescriptor: (_t, key) =>
      typeof key === 'string' && defs && key in defs
        ? { configurable: true, enumerable: true, value: force(key) }
        : undefined,
  });
  // defineCluster accepted only what definePackage returns: a Package, build included.
  defs = (inst.package as Package).build({
    scope,
    self,
    deps,
    config: inst.config,
    availability: build.cluster.availability,
    cluster: build.cluster,
  });
  if (!isPlainObject(defs)) {
    throw new SdkError(
      SdkCode.packageDefinition,
      `package ${inst.package.name}: build must return an object of parts`,
    );
  }
  for (const key of Object.keys(defs)) force(key);
  return packageView(instanceName, inst.namespace, values);
}

function packageView(instanceName: string, namespaceName: string, parts: Map<string, unknown>): PackageView {
  const raw = Object.fromEntries(parts);
  const root = parts.get('root');
  let rootResource: unknown;
  let rootOut: Record<string, unknown> = {};
  if (isResource(root)) rootResource = root;
  else if (isPlainObject(root) && isResource(root.resource)) {
    rootResource = root.resource;
    if (isPlainObject(root.out)) rootOut = { ...root.out };
  }
  const baseOut = isResource(rootResource) ? (rootResource.out as Record<string, unknown>) : {};
  const out = Object.freeze({ ...baseOut, ...rootOut });
  const crdsPart = parts.get('crds');
  const crds: Record<string, Resource<CrdOut>> = {};
  if (isPlainObject(crdsPart)) {
    for (const v of Object.values(crdsPart)) {
      if (isResource(v) && v.kind === 'CustomResourceDefinition') {
        const kind = (v.out as unknown as CrdOut).crKind;
        crds[kind] = v as Resource<CrdOut>;
      }
    }
  }
  return Object.freeze({
    ...Object.fromEntries(
      Object.entries(raw).filter(([k, v]) => isPlainObject(v) && !['root', 'out', 'raw', 'crds'].includes(k)),
    ),
    ...out,
    _type: 'kix.packageView' as const,
    _packageInstance: instanceName,
    _meta: { namespaceName, instanceName },
    root: rootResource,
    out: out as PackageView['out'],
    raw,
    crds,
  }) as PackageView;
}
