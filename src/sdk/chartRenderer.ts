/**
 * What `scope.helm.importChart` asks of a chart renderer and gets back: the types alone, so that a build
 * (build.ts) can carry a renderer without depending on the chart import itself (chart.ts).
 */
/** What `scope.helm.importChart` asks a renderer for. */
export interface ChartRenderRequest {
  /** A chart directory or a packaged `.tgz`. */
  readonly chart: string;
  readonly releaseName: string;
  readonly namespace: string;
  /** Values files, in order (a later file wins, maps merge key by key, as Helm's `-f`). */
  readonly valuesFiles: readonly string[];
  /** Value layers applied after the files, in order. */
  readonly values: readonly Record<string, unknown>[];
  /** Helm `--set` expressions, applied last. */
  readonly set: readonly string[];
  readonly includeCrds: boolean;
  readonly skipTests: boolean;
  readonly noHooks: boolean;
  readonly kubeVersion?: string | undefined;
  readonly apiVersions: readonly string[];
}

export interface RenderedChartDocument {
  /** The template (or crds/ file) it came from, e.g. `shop/templates/service.yaml`. */
  readonly source: string;
  readonly role: 'crd' | 'manifest' | 'hook';
  readonly hook?: {
    readonly events: readonly string[];
    readonly weight: number;
    readonly deletePolicies: readonly string[];
  };
  readonly object: ChartManifest;
}

export interface RenderedChart {
  readonly release: string;
  readonly namespace: string;
  readonly chart: { readonly name: string; readonly version: string };
  /** In `helm template` order. */
  readonly documents: readonly RenderedChartDocument[];
}

/** Renders a chart synchronously (a package's `build` is synchronous). */
export type ChartRenderer = (req: ChartRenderRequest) => RenderedChart;

/** A rendered manifest handed to `scope.helm.importChart`. */
export interface ChartManifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
