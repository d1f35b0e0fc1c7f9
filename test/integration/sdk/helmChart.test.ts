/**
 * Helm charts through tools/helm-render (Helm's own library): the JSON the SDK imports is exactly what
 * `helm template` prints from the same binary, for a chart directory and its packaged .tgz; values merge as
 * Helm merges them; hooks and crds/ are handled as `helm template` handles them; importChart keeps Helm's
 * install order as edges. The charts are written for these tests (test/fixtures/charts).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import YAML from 'yaml';
import { binaryChartRenderer, buildHelmRender, runHelmRender } from '../../../src/helm/renderChart.ts';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';
import {
  type ChartRenderRequest,
  createSession,
  type ImportChartArgs,
  type Manifest,
  type RenderedChart,
  SdkCode,
  type SynthResult,
} from '../../../src/sdk/index.ts';
import { dependsOn, find, hashOf, throwsCode } from '../../unit/sdk/helpers.ts';

const chartDir = join(repoRoot, 'test', 'fixtures', 'charts', 'shop');
const request = (o: Partial<ChartRenderRequest> = {}): ChartRenderRequest => ({
  chart: chartDir,
  releaseName: 'store',
  namespace: 'shop',
  valuesFiles: [],
  values: [],
  set: [],
  includeCrds: true,
  skipTests: false,
  noHooks: false,
  apiVersions: [],
  ...o,
});

let binary = '';
let tgz = '';
const json = (req: ChartRenderRequest) => JSON.parse(runHelmRender('json', req, binary)) as RenderedChart;
const templateDocs = (req: ChartRenderRequest) =>
  YAML.parseAllDocuments(runHelmRender('template', req, binary))
    .map((d) => d.toJS() as unknown)
    .filter((d) => d !== null);
const object = (r: RenderedChart, kind: string, name: string) => {
  const d = r.documents.find((x) => x.object.kind === kind && x.object.metadata.name === name);
  assert.ok(d, `no ${kind}/${name}`);
  return d.object as Record<string, unknown> & {
    spec?: Record<string, unknown>;
    data?: Record<string, string>;
  };
};

describe('helm-render: Helm charts rendered by Helm', () => {
  before(() => {
    binary = buildHelmRender();
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-chart-'));
    tgz = join(dir, 'shop-0.3.1.tgz');
    execFileSync('tar', ['-czf', tgz, '-C', join(repoRoot, 'test', 'fixtures', 'charts'), 'shop']);
  });

  it('the objects the SDK gets are the documents of `helm template`, in order, for a directory and a .tgz', () => {
    const fromDir = json(request());
    const expected = templateDocs(request());
    assert.deepEqual(
      fromDir.documents.map((d) => d.object),
      expected,
    );
    assert.ok(expected.length >= 10);
    const fromTgz = json(request({ chart: tgz }));
    assert.deepEqual(fromTgz.documents, fromDir.documents);
    assert.deepEqual(templateDocs(request({ chart: tgz })), expected);
    assert.deepEqual(fromDir.chart, { name: 'shop', version: '0.3.1' });
  });

  it('values: chart defaults, then files, then layers, then --set; maps merge key by key; null removes a default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-values-'));
    const file = join(dir, 'prod.yaml');
    writeFileSync(file, 'replicaCount: 3\nimage:\n  tag: "2.5.0"\nsettings:\n  debug: "yes"\n');
    const r = json(
      request({
        valuesFiles: [file],
        values: [
          { replicaCount: 4, settings: { mode: null } },
          { cache: { enabled: true, maxMemory: '128mb' } },
        ],
        set: ['service.port=8081'],
      }),
    );
    const deploy = object(r, 'Deployment', 'store-shop');
    assert.equal(deploy.spec?.replicas, 4, 'a later layer wins over the file');
    const container = (deploy.spec as { template: { spec: { containers: { image: string }[] } } }).template
      .spec.containers[0]!;
    assert.equal(
      container.image,
      'ghcr.io/acme/shop:2.5.0',
      'image.tag from the file, image.repository from the chart',
    );
    assert.deepEqual(object(r, 'ConfigMap', 'store-shop-settings').data, {
      debug: 'yes',
      featureFlag: 'on',
      'release-namespace': 'shop',
    });
    const svc = object(r, 'Service', 'store-shop');
    assert.equal((svc.spec as { ports: { port: number }[] }).ports[0]!.port, 8081);
    assert.deepEqual(
      object(r, 'ConfigMap', 'store-cache').data,
      { maxMemory: '128mb', team: 'storefront' },
      'the enabled subchart gets its values and the globals',
    );
  });

  it('hooks as `helm template` has them (test hooks too unless skipped), and crds/ untemplated first', () => {
    const r = json(request());
    const roles = r.documents.map((d) => `${d.role}:${d.object.kind}/${d.object.metadata.name}`);
    assert.equal(roles[0], 'crd:CustomResourceDefinition/widgets.shop.example.com');
    assert.deepEqual(
      r.documents.filter((d) => d.role === 'hook').map((d) => [d.object.metadata.name, d.hook]),
      [
        [
          'store-shop-schema',
          { events: ['pre-install', 'pre-upgrade'], weight: -5, deletePolicies: ['before-hook-creation'] },
        ],
        ['store-shop-seed', { events: ['pre-install'], weight: 5, deletePolicies: [] }],
        ['store-shop-announce', { events: ['post-install', 'post-upgrade'], weight: 0, deletePolicies: [] }],
        ['store-shop-test', { events: ['test'], weight: 0, deletePolicies: [] }],
      ],
    );
    const crd = object(r, 'CustomResourceDefinition', 'widgets.shop.example.com');
    assert.match(JSON.stringify(crd), /\{\{ \.Values\.ignored \}\} is not a template here/);
    assert.ok(!json(request({ skipTests: true })).documents.some((d) => d.object.kind === 'Pod'));
    assert.ok(!json(request({ noHooks: true })).documents.some((d) => d.role === 'hook'));
    assert.ok(!json(request({ includeCrds: false })).documents.some((d) => d.role === 'crd'));
  });

  it('a template error is a KG7073 diagnostic with Helm’s message', () => {
    throwsCode(
      () => json(request({ set: ['widgets=notalist'] })),
      SdkCode.chart,
      /range can't iterate over notalist|error calling|template/,
    );
  });
});

describe('scope.helm.importChart({ chart })', () => {
  const importInto = (o: Partial<ImportChartArgs>): SynthResult => {
    const session = createSession({}, { chartRenderer: binaryChartRenderer(binary) });
    const scope = session.scope({ instanceName: 'store', namespaceName: 'shop' });
    scope.helm.importChart({ chart: chartDir, ...o });
    return session.finalize();
  };

  it('imports every object in the release namespace, cluster-scoped kinds without one, with Helm’s install order as edges', () => {
    const r = importInto({ values: { rbac: { clusterWide: true } }, skipTests: true });
    const m = (kind: string, name: string): Manifest => find(r, kind, name);
    assert.equal(m('ClusterRole', 'store-shop-reader').metadata.namespace, undefined);
    assert.equal(m('CustomResourceDefinition', 'widgets.shop.example.com').metadata.namespace, undefined);
    assert.equal(m('Deployment', 'store-shop').metadata.namespace, 'shop');
    assert.equal(m('Widget', 'store-shop-default').metadata.namespace, 'shop');
    const h = (kind: string, name: string) => hashOf(r, kind, name);
    const deps = (kind: string, name: string) => dependsOn(m(kind, name));
    assert.ok(
      deps('Widget', 'store-shop-default').includes(
        h('CustomResourceDefinition', 'widgets.shop.example.com'),
      ),
      'the CR waits for its CRD',
    );
    for (const [kind, name] of [
      ['Deployment', 'store-shop'],
      ['ConfigMap', 'store-shop-settings'],
      ['Service', 'store-shop'],
    ] as const) {
      assert.ok(
        deps(kind, name).includes(h('ConfigMap', 'store-shop-schema')),
        `${name} after the pre-install hooks`,
      );
      assert.ok(deps(kind, name).includes(h('ConfigMap', 'store-shop-seed')));
    }
    assert.ok(
      deps('ConfigMap', 'store-shop-seed').includes(h('ConfigMap', 'store-shop-schema')),
      'pre hooks by weight',
    );
    assert.ok(
      deps('ConfigMap', 'store-shop-announce').includes(h('Deployment', 'store-shop')),
      'post-install hooks last',
    );
    assert.ok(!r.manifests.some((x) => x.kind === 'Pod'), 'skipTests');
    const order = r.manifests.map((x) => `${x.kind}/${x.metadata.name}`);
    assert.ok(order.indexOf('ConfigMap/store-shop-schema') < order.indexOf('Deployment/store-shop'));
    assert.ok(order.indexOf('Deployment/store-shop') < order.indexOf('ConfigMap/store-shop-announce'));
    assert.equal(m('Deployment', 'store-shop').metadata.labels?.['app.kubernetes.io/managed-by'], 'kix');
    assert.equal(
      m('Deployment', 'store-shop').metadata.labels?.['helm.sh/chart'],
      'shop-0.3.1',
      'chart labels kept',
    );
  });

  it('without a renderer, a chart is a KG7073 error that says how to get one', () => {
    const session = createSession({});
    const scope = session.scope({ instanceName: 'store', namespaceName: 'shop' });
    throwsCode(() => scope.helm.importChart({ chart: chartDir }), SdkCode.chart, 'needs Helm');
  });
});
