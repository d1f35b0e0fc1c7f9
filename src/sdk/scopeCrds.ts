/**
 * CRDs of a scope and their custom resources (design/sdk.md §A2.6): `mkCRD` builds one, `mkCRDRef` names one
 * installed elsewhere, `mkCR` builds a custom resource of either. What each CRD serves is recorded in the
 * SDK registry so a custom resource finds its kind, scope and readiness from the CRD resource alone.
 */
import type { ResNode } from './build.ts';
import { SdkCode, SdkError } from './errors.ts';
import { sdkRegistry } from './registry.ts';
import { type AnyResource, createResource, type Resource, type ScopeState } from './resource.ts';
import type { CrArgs, CrdArgs, CrdOut, CrdRefArgs, Readiness, Scope } from './scopeApi.ts';
import { asObj, asText } from './validators.ts';
import type { ValueObject } from './values.ts';

export function validateReadiness(r: unknown, where: string): Readiness {
  const o = asObj(r);
  const bad = (why: string): never => {
    throw new SdkError(SdkCode.invalidReadiness, `${where}: readiness ${why}`);
  };
  if (!o) return bad('must be an object');
  const keys = Object.keys(o).sort().join(',');
  if (keys === 'condition') {
    const c = asObj(o.condition);
    if (
      !c ||
      typeof c.type !== 'string' ||
      c.type === '' ||
      !['True', 'False', 'Unknown'].includes(String(c.status))
    ) {
      bad('condition needs a type and a status of "True", "False" or "Unknown"');
    }
    return { condition: { type: c!.type as string, status: c!.status as 'True' | 'False' | 'Unknown' } };
  }
  if (keys === 'equals,path' || keys === 'notEquals,path') {
    if (typeof o.path !== 'string' || !o.path.startsWith('/'))
      bad('path must be a JSON pointer starting with "/"');
    const op = 'equals' in o ? 'equals' : 'notEquals';
    if (typeof o[op] !== 'string') bad(`${op} must be a string`);
    return { path: o.path as `/${string}`, [op]: o[op] } as Readiness;
  }
  return bad('must be {condition}, {path, equals} or {path, notEquals}');
}

function readinessAnnotation(r: Readiness): string {
  if ('condition' in r)
    return JSON.stringify({ condition: { type: r.condition.type, status: r.condition.status } });
  if ('equals' in r) return JSON.stringify({ path: r.path, equals: r.equals });
  return JSON.stringify({ path: r.path, notEquals: r.notEquals });
}

interface CrdInfo {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly readiness: Readiness | undefined;
  /** Set right after the CRD node is created. */
  node: ResNode;
}
const crdInfos = sdkRegistry.crdInfos as WeakMap<object, CrdInfo>;

/** The CRDs built in one scope, by node: `crd.out.mkCR(scope, …)` builds through the given scope. */
export type CrdsByNode = Map<ResNode, Resource<CrdOut>>;

/** A custom resource of the CRD `info` describes, built in `st`. */
function mkCRFor(st: ScopeState, info: CrdInfo, a: CrArgs): AnyResource {
  return createResource(
    st,
    { ...a, apiVersion: info.apiVersion, kind: info.kind },
    {
      namespaced: info.namespaced,
      structural: [info.node],
      systemAnnotations: info.readiness ? { 'kix.run/readiness': readinessAnnotation(info.readiness) } : {},
    },
  ).resource;
}

function crdOutExtras(info: CrdInfo, st: ScopeState, crds: CrdsByNode) {
  return {
    crApiVersion: info.apiVersion,
    crKind: info.kind,
    readiness: info.readiness,
    cr: (a: CrArgs) => mkCRFor(st, info, a),
    mkCR: (s: Scope, a: CrArgs) => s.mkCR(crds.get(info.node)!, a),
  };
}

function registerCrd(crds: CrdsByNode, r: Resource<CrdOut>, info: CrdInfo): void {
  crdInfos.set(r, info);
  crds.set(info.node, r);
}

export function mkCRD(st: ScopeState, crds: CrdsByNode, a: CrdArgs): Resource<CrdOut> {
  const spec = a.spec;
  if (!spec || typeof spec.group !== 'string' || !spec.names?.kind || !spec.names?.plural) {
    throw new SdkError(
      SdkCode.invalidArgument,
      'mkCRD: spec.group, spec.names.kind and spec.names.plural are required',
    );
  }
  const version = spec.versions?.find((v) => v.storage) ?? spec.versions?.find((v) => v.served);
  if (!version)
    throw new SdkError(SdkCode.invalidArgument, `mkCRD ${spec.names.kind}: a served version is required`);
  const readiness =
    a.readiness === undefined ? undefined : validateReadiness(a.readiness, `CRD ${spec.names.kind}`);
  const expectedName = `${spec.names.plural}.${spec.group}`;
  const name = a.name ?? expectedName;
  if (asText(name) !== expectedName) {
    throw new SdkError(SdkCode.invalidName, `CRD name must be ${expectedName}`);
  }
  const { readiness: _r, spec: _s, ...rest } = a;
  const info: CrdInfo = {
    apiVersion: `${spec.group}/${version.name}`,
    kind: spec.names.kind,
    namespaced: spec.scope !== 'Cluster',
    readiness,
    node: undefined as unknown as ResNode,
  };
  const { node, resource } = createResource(
    st,
    {
      ...rest,
      name,
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      spec: spec as ValueObject,
    },
    { namespaced: false, outExtras: () => crdOutExtras(info, st, crds) },
  );
  info.node = node;
  registerCrd(crds, resource as Resource<CrdOut>, info);
  return resource as Resource<CrdOut>;
}

export function mkCRDRef(st: ScopeState, crds: CrdsByNode, a: CrdRefArgs): Resource<CrdOut> {
  const readiness =
    a.readiness === undefined ? undefined : validateReadiness(a.readiness, `CRD ref ${a.kind}`);
  const plural = a.plural ?? `${a.kind.toLowerCase()}s`;
  const info: CrdInfo = {
    apiVersion: `${a.group}/${a.version}`,
    kind: a.kind,
    namespaced: a.scope !== 'Cluster',
    readiness,
    node: undefined as unknown as ResNode,
  };
  const { node, resource } = createResource(
    st,
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: `${plural}.${a.group}`,
    },
    {
      namespaced: false,
      isImport: true,
      systemAnnotations: { 'kix.run/import': 'true' },
      outExtras: () => crdOutExtras(info, st, crds),
    },
  );
  info.node = node;
  registerCrd(crds, resource as Resource<CrdOut>, info);
  return resource as Resource<CrdOut>;
}

export function mkCR(st: ScopeState, crd: Resource<CrdOut>, a: CrArgs): AnyResource {
  const info = crdInfos.get(crd);
  if (!info)
    throw new SdkError(
      SdkCode.notAResource,
      'mkCR: the first argument must be a resource from mkCRD or mkCRDRef',
    );
  return mkCRFor(st, info, a);
}
