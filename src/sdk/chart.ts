/**
 * `scope.helm.importChart`: Helm charts as resources of the build.
 *
 * Rendering is Helm's own (tools/helm-render, the code path of `helm template`), reached through an
 * injected {@link ChartRenderer}: synth stays pure, and `kgraph synth` / `kgraph deploy` inject the
 * binary-backed renderer of `src/helm/`. Already-rendered manifests can be imported without a renderer.
 * Every object is imported as it is (third-party: no refusals, no pod validation), namespaced or
 * cluster-scoped by the Kix reference's kind list (design/sdk.md §A2) (and by the scope of the chart's own CRDs), with Helm's install
 * order kept as edges: crds/ first, then pre-install hooks by weight, the manifests, post-install hooks.
 */
import type { ResNode } from './build.ts';
import type { ChartManifest, RenderedChartDocument } from './chartRenderer.ts';
import { SdkCode, SdkError } from './errors.ts';
import { type AnyResource, createResource, type ScopeState } from './resource.ts';
import { asObj } from './validators.ts';
import type { ValueObject } from './values.ts';

export type {
  ChartManifest,
  ChartRenderer,
  ChartRenderRequest,
  RenderedChart,
  RenderedChartDocument,
} from './chartRenderer.ts';

/**
 * `scope.helm.importChart`: a Helm chart's objects as resources of the scope, namespaced or cluster-scoped
 * by kind. Exactly one of `chart` and `manifests`.
 */
export interface ImportChartArgs {
  /** Already-rendered manifests (e.g. `helm template` output): imported as they are, in this order. */
  manifests?: readonly ChartManifest[];
  /** A chart directory or `.tgz`, rendered with Helm (`tools/helm-render`). */
  chart?: string;
  /** @default the instance name */
  releaseName?: string;
  /**
   * One value layer or several, applied after `valuesFiles`, in order.
   * @default [] (the chart's own values)
   */
  values?: Record<string, unknown> | readonly Record<string, unknown>[];
  /** @default [] */
  valuesFiles?: readonly string[];
  /**
   * `--set` expressions, applied last.
   * @default []
   */
  set?: readonly string[];
  /**
   * Import the chart's `crds/` (Helm installs them).
   * @default true
   */
  includeCrds?: boolean;
  /**
   * Leave out `helm.sh/hook: test` objects.
   * @default false (as `helm template`)
   */
  skipTests?: boolean;
  /**
   * Leave out every hook.
   * @default false
   */
  noHooks?: boolean;
  /** @default Helm's default Kubernetes version */
  kubeVersion?: string;
  /**
   * API versions `.Capabilities.APIVersions` reports besides the built-in ones.
   * @default []
   */
  apiVersions?: readonly string[];
}

/** The Kix reference's built-in list of cluster-scoped kinds used by `scope.helm.importChart`. */
export const clusterScopedKinds: ReadonlySet<string> = new Set([
  'APIService',
  'CertificateSigningRequest',
  'ClusterRole',
  'ClusterRoleBinding',
  'CSIDriver',
  'CSINode',
  'CustomResourceDefinition',
  'IngressClass',
  'MutatingWebhookConfiguration',
  'Namespace',
  'Node',
  'PersistentVolume',
  'PriorityClass',
  'RuntimeClass',
  'StorageClass',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'ValidatingWebhookConfiguration',
  'VolumeAttachment',
]);

const isPre = (d: RenderedChartDocument) =>
  d.role === 'hook' && (d.hook?.events ?? []).some((e) => e === 'pre-install' || e === 'pre-upgrade');
const isPost = (d: RenderedChartDocument) =>
  d.role === 'hook' && (d.hook?.events ?? []).some((e) => e === 'post-install' || e === 'post-upgrade');

export function importChart(st: ScopeState, a: ImportChartArgs): AnyResource[] {
  if (a.manifests !== undefined && a.chart !== undefined) {
    throw new SdkError(SdkCode.chart, 'helm.importChart: pass either chart or manifests, not both');
  }
  if (a.manifests !== undefined) {
    return importDocuments(
      st,
      a.manifests.map((object) => ({ source: '', role: 'manifest' as const, object })),
    );
  }
  if (typeof a.chart !== 'string' || a.chart === '') {
    throw new SdkError(
      SdkCode.chart,
      'helm.importChart: chart (a directory or .tgz) or manifests is required',
    );
  }
  const render = st.build.chartRenderer;
  if (!render) {
    throw new SdkError(
      SdkCode.chart,
      `helm.importChart ${a.chart}: rendering a chart needs Helm (tools/helm-render); kgraph synth and kgraph deploy provide it, a program passes synth(def, { chartRenderer: binaryChartRenderer() }) from kgraph's src/helm`,
    );
  }
  const values = a.values === undefined ? [] : Array.isArray(a.values) ? a.values : [a.values];
  const rendered = render({
    chart: a.chart,
    releaseName: a.releaseName ?? st.instanceName,
    namespace: st.namespaceName,
    valuesFiles: [...(a.valuesFiles ?? [])],
    values: values as Record<string, unknown>[],
    set: [...(a.set ?? [])],
    includeCrds: a.includeCrds ?? true,
    skipTests: a.skipTests ?? false,
    noHooks: a.noHooks ?? false,
    kubeVersion: a.kubeVersion,
    apiVersions: [...(a.apiVersions ?? [])],
  });
  return importDocuments(st, rendered.documents);
}

function importDocuments(st: ScopeState, docs: readonly RenderedChartDocument[]): AnyResource[] {
  // Scope of the kinds the chart's own CRDs define.
  const crdScopes = new Map<string, { namespaced: boolean; node?: ResNode }>();
  for (const d of docs) {
    if (d.object?.kind !== 'CustomResourceDefinition') continue;
    const spec = asObj(d.object.spec);
    const group = spec?.group;
    const kind = asObj(spec?.names)?.kind;
    if (typeof group === 'string' && typeof kind === 'string') {
      crdScopes.set(`${group}/${kind}`, { namespaced: spec?.scope !== 'Cluster' });
    }
  }
  const built: { doc: RenderedChartDocument; node: ResNode; resource: AnyResource }[] = [];
  for (const doc of docs) {
    const m = doc.object;
    if (!m || typeof m.apiVersion !== 'string' || typeof m.kind !== 'string' || !asObj(m.metadata)) {
      throw new SdkError(
        SdkCode.chart,
        `helm.importChart${doc.source ? ` ${doc.source}` : ''}: every manifest needs apiVersion, kind and metadata`,
      );
    }
    const { apiVersion, kind, metadata, spec, data, stringData, ...rest } = m;
    const { name, namespace: _namespace, labels, annotations, ...metaRest } = metadata;
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const crd = crdScopes.get(`${group}/${kind}`);
    const namespaced = crd ? crd.namespaced : !clusterScopedKinds.has(kind);
    // As mkResource: a namespaced object always lands in the scope's namespace (design/sdk.md §A2).
    const { node, resource } = createResource(
      st,
      {
        apiVersion,
        kind,
        name,
        ...(labels ? { labels } : {}),
        ...(annotations ? { annotations } : {}),
        ...(asObj(spec) ? { spec: spec as ValueObject } : {}),
        ...(asObj(data) ? { data: data as ValueObject } : {}),
        ...(asObj(stringData) ? { stringData: stringData as ValueObject } : {}),
        extra: {
          ...(rest as ValueObject),
          ...(Object.keys(metaRest).length > 0 ? { metadata: metaRest as ValueObject } : {}),
        },
      },
      { namespaced },
    );
    if (kind === 'CustomResourceDefinition') {
      const s = asObj(m.spec);
      const k = asObj(s?.names)?.kind;
      const entry = crdScopes.get(`${String(s?.group)}/${String(k)}`);
      if (entry) entry.node = node;
    }
    built.push({ doc, node, resource });
  }
  // Helm's install order as edges.
  const pre = built
    .filter((b) => isPre(b.doc))
    .sort((x, y) => (x.doc.hook?.weight ?? 0) - (y.doc.hook?.weight ?? 0));
  const post = built.filter((b) => isPost(b.doc));
  const manifests = built.filter((b) => b.doc.role === 'manifest');
  for (const b of built) {
    const group = b.node.apiVersion.includes('/')
      ? b.node.apiVersion.slice(0, b.node.apiVersion.indexOf('/'))
      : '';
    const crdNode = crdScopes.get(`${group}/${b.node.kind}`)?.node;
    if (crdNode && crdNode !== b.node) b.node.structural.push(crdNode);
  }
  pre.forEach((b, i) => {
    for (const earlier of pre.slice(0, i)) {
      if ((earlier.doc.hook?.weight ?? 0) < (b.doc.hook?.weight ?? 0)) b.node.structural.push(earlier.node);
    }
  });
  for (const m of manifests) for (const p of pre) m.node.structural.push(p.node);
  for (const p of post) for (const m of manifests) p.node.structural.push(m.node);
  return built.map((b) => b.resource);
}
