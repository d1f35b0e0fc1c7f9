import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { defaultOpenApiCacheDir } from '../../../src/kube/openapi.ts';
import { derefSchema, type OpenAPISchema } from '../../../src/schema/openapi.ts';
import { BundleSchemaSource, parseBundle, type SchemaBundle } from '../../../src/schema/sources/bundle.ts';
import { CrdSchemaSource } from '../../../src/schema/sources/crdFile.ts';
import { type LiveSchemaFetcher, LiveSchemaSource } from '../../../src/schema/sources/live.ts';
import { inlineRefs, stripDescriptions } from '../../../src/schema/sources/openapiDocs.ts';
import {
  ChainedSchemaResolver,
  createSchemaResolver,
  toKindLookup,
} from '../../../src/schema/sources/resolver.ts';
import { isUnknownKind, type ResolveResult } from '../../../src/schema/sources/types.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A tiny bundle in the real format: ConfigMap (namespaced), Namespace (cluster), Deployment. */
function tinyBundle(): SchemaBundle {
  return {
    format: 1,
    kubernetesVersion: 'v1.37.2',
    schemas: {
      [META]: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
      'io.k8s.api.core.v1.ConfigMap': {
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { allOf: [ref(META)], default: {} },
          data: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
      'io.k8s.api.core.v1.Namespace': { type: 'object', properties: { metadata: ref(META) } },
      'io.k8s.api.apps.v1.Deployment': {
        type: 'object',
        properties: {
          metadata: ref(META),
          spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
        },
      },
    },
    kinds: [
      {
        group: '',
        version: 'v1',
        kind: 'ConfigMap',
        plural: 'configmaps',
        namespaced: true,
        schema: 'io.k8s.api.core.v1.ConfigMap',
      },
      {
        group: '',
        version: 'v1',
        kind: 'Namespace',
        plural: 'namespaces',
        namespaced: false,
        schema: 'io.k8s.api.core.v1.Namespace',
      },
      {
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        plural: 'deployments',
        namespaced: true,
        schema: 'io.k8s.api.apps.v1.Deployment',
      },
    ],
  };
}

const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            metadata: {type: object}
            spec: {type: object, properties: {size: {type: integer}}}
    - name: v0
      served: false
      storage: false
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ignored}
`;

function ok(r: ResolveResult) {
  assert.ok(!isUnknownKind(r), isUnknownKind(r) ? r.reason : '');
  return r as Exclude<ResolveResult, { unknown: true }>;
}

function liveFetcher(
  docs: Record<string, { schemas: Record<string, OpenAPISchema>; kinds: [string, boolean][] }>,
) {
  const calls: string[] = [];
  const fetcher: LiveSchemaFetcher = {
    async document(apiVersion) {
      calls.push(`doc ${apiVersion}`);
      const d = docs[apiVersion];
      return d ? { components: { schemas: d.schemas } } : undefined;
    },
    async resources(apiVersion) {
      calls.push(`res ${apiVersion}`);
      const d = docs[apiVersion];
      return d?.kinds.map(([kind, namespaced]) => ({ kind, namespaced, plural: `${kind.toLowerCase()}s` }));
    },
  };
  return { fetcher, calls };
}

describe('offline bundle source', () => {
  const source = new BundleSchemaSource(tinyBundle());

  it('resolves built-in kinds with scope, plural and resolvable $refs', () => {
    const cm = source.lookup('', 'v1', 'ConfigMap');
    assert.equal(cm?.namespaced, true);
    assert.equal(cm?.plural, 'configmaps');
    assert.equal(cm?.source, 'bundle');
    const meta = derefSchema(cm!.schema.properties!.metadata!, cm!.components);
    assert.deepEqual(meta?.properties?.name, { type: 'string' });
    assert.deepEqual(meta?.default, {}, 'siblings of an allOf wrapper are kept');
    assert.equal(source.lookup('', 'v1', 'Namespace')?.namespaced, false);
    assert.equal(source.lookup('', 'v1', 'Deployment'), undefined);
  });

  it('round-trips through gzip JSON and rejects other formats', () => {
    const bytes = gzipSync(JSON.stringify(tinyBundle()));
    assert.equal(parseBundle(bytes).kinds.length, 3);
    assert.throws(() => parseBundle(gzipSync('{"format":2}')), /not a kgraph schema bundle/);
  });
});

describe('CRD file source', () => {
  const source = new CrdSchemaSource({ metaComponents: tinyBundle().schemas });
  source.addText('widgets.yaml', WIDGET_CRD);

  it('reads served versions, scope and plural, ignoring other documents', () => {
    const w = source.lookup('example.com', 'v1', 'Widget');
    assert.equal(w?.namespaced, false);
    assert.equal(w?.plural, 'widgets');
    assert.equal(w?.origin, 'widgets.yaml');
    assert.deepEqual(w?.schema.properties?.spec, {
      type: 'object',
      properties: { size: { type: 'integer' } },
    });
    assert.equal(source.lookup('example.com', 'v0', 'Widget'), undefined, 'unserved versions are skipped');
    assert.deepEqual(source.diagnostics, []);
  });

  it('points a plain metadata at ObjectMeta and adds apiVersion and kind', () => {
    const w = source.lookup('example.com', 'v1', 'Widget')!;
    assert.deepEqual(w.schema.properties?.metadata, ref(META));
    assert.equal(derefSchema(w.schema.properties!.metadata!, w.components)?.properties?.name?.type, 'string');
    assert.deepEqual(w.schema.properties?.kind, { type: 'string' });
  });

  it('reports unusable CRDs and unreadable files', () => {
    const s = new CrdSchemaSource();
    s.addText(
      'bad.yaml',
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {group: g}\n',
    );
    s.addFile('/nonexistent/crd.yaml');
    assert.deepEqual(
      s.diagnostics.map((d) => [d.code, d.location?.file]),
      [
        ['KG4040', 'bad.yaml'],
        ['KG4040', '/nonexistent/crd.yaml'],
      ],
    );
  });
});

describe('schema resolver order', () => {
  it('asks CRD files first, then the cluster, then the bundle', async () => {
    const crd = new CrdSchemaSource();
    crd.addText(
      'deploy-override.yaml',
      WIDGET_CRD.replace('group: example.com', 'group: apps').replace('kind: Widget', 'kind: Deployment'),
    );
    const { fetcher } = liveFetcher({
      'apps/v1': {
        schemas: {
          D: {
            type: 'object',
            'x-kubernetes-group-version-kind': [{ group: 'apps', version: 'v1', kind: 'Deployment' }],
          },
        },
        kinds: [['Deployment', true]],
      },
      v1: {
        schemas: {
          CM: {
            type: 'object',
            'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'ConfigMap' }],
          },
        },
        kinds: [['ConfigMap', true]],
      },
    });
    const live = new LiveSchemaSource(fetcher, 'https://127.0.0.1:6443');
    const bundle = new BundleSchemaSource(tinyBundle());
    const resolver = new ChainedSchemaResolver([crd, live, bundle]);
    await resolver.prepare(['apps/v1', 'v1']);
    assert.equal(ok(resolver.resolve('apps/v1', 'Deployment')).source, 'crd-file');
    assert.equal(ok(resolver.resolve('v1', 'ConfigMap')).source, 'cluster');
    assert.equal(ok(resolver.resolve('v1', 'Namespace')).source, 'bundle');

    const withoutCrd = new ChainedSchemaResolver([live, bundle]);
    assert.equal(ok(withoutCrd.resolve('apps/v1', 'Deployment')).source, 'cluster');
    assert.equal(ok(withoutCrd.resolve('apps/v1', 'Deployment')).schema.type, 'object');
  });

  it('an unknown kind is a value whose reason names the sources consulted', () => {
    const resolver = new ChainedSchemaResolver([new CrdSchemaSource(), new BundleSchemaSource(tinyBundle())]);
    const r = resolver.resolve('example.com/v1', 'Gadget');
    assert.ok(isUnknownKind(r));
    assert.match(r.reason, /unknown kind Gadget in example\.com\/v1/);
    assert.match(r.reason, /CRD files \(none given\)/);
    assert.match(r.reason, /built-in Kubernetes v1\.37\.2 schemas/);
    assert.match(r.reason, /pass its CRD with --crd/);
  });

  it('names other apiVersions that define the kind', () => {
    const resolver = new ChainedSchemaResolver([new BundleSchemaSource(tinyBundle())]);
    const r = resolver.resolve('apps/v1beta1', 'Deployment');
    assert.ok(isUnknownKind(r));
    assert.match(r.reason, /Deployment exists in apps\/v1/);
  });

  it('falls back to the bundle when the cluster fails, and says so for unknown kinds', async () => {
    const fetcher: LiveSchemaFetcher = {
      document: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
      },
      resources: async () => undefined,
    };
    const resolver = new ChainedSchemaResolver([
      new LiveSchemaSource(fetcher, 'https://127.0.0.1:6443'),
      new BundleSchemaSource(tinyBundle()),
    ]);
    await resolver.prepare(['v1', 'example.com/v1']);
    assert.equal(ok(resolver.resolve('v1', 'ConfigMap')).source, 'bundle');
    const r = resolver.resolve('example.com/v1', 'Gadget');
    assert.ok(isUnknownKind(r));
    assert.match(
      r.reason,
      /cannot read example\.com\/v1 from https:\/\/127\.0\.0\.1:6443: connect ECONNREFUSED/,
    );
  });

  it('prepares each apiVersion once', async () => {
    const { fetcher, calls } = liveFetcher({ v1: { schemas: {}, kinds: [] } });
    const live = new LiveSchemaSource(fetcher);
    await live.prepare(['v1', 'v1']);
    await live.prepare(['v1']);
    assert.deepEqual(calls.sort(), ['doc v1', 'res v1']);
    live.invalidate('v1');
    await live.prepare(['v1']);
    assert.equal(calls.length, 4, 'invalidate makes the next prepare reload');
  });

  it('without any source, resolving says so', () => {
    const r = new ChainedSchemaResolver([]).resolve('v1', 'ConfigMap');
    assert.ok(isUnknownKind(r));
    assert.match(r.reason, /no schema source is configured/);
  });

  it('createSchemaResolver wires CRD files (with their diagnostics) and an explicit bundle', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-schema-'));
    const crdFile = join(dir, 'widgets.yaml');
    writeFileSync(crdFile, WIDGET_CRD);
    const bundleFile = join(dir, 'bundle.json.gz');
    writeFileSync(bundleFile, gzipSync(JSON.stringify(tinyBundle())));
    const { resolver, diagnostics } = createSchemaResolver({
      crdFiles: [crdFile, join(dir, 'missing.yaml')],
      bundle: bundleFile,
    });
    assert.equal(diagnostics.length, 1);
    const w = ok(resolver.resolve('example.com/v1', 'Widget'));
    assert.equal(w.source, 'crd-file');
    assert.deepEqual(w.schema.properties?.metadata, ref(META), 'ObjectMeta comes from the bundle');
    assert.equal(ok(resolver.resolve('v1', 'ConfigMap')).source, 'bundle');
    const none = createSchemaResolver({ bundle: false }).resolver;
    assert.ok(isUnknownKind(none.resolve('v1', 'ConfigMap')));
  });
});

describe('schema helpers', () => {
  it('inlineRefs expands references and cuts recursion to untyped', () => {
    const components: Record<string, OpenAPISchema> = {
      Props: { type: 'object', properties: { items: ref('Props'), name: { type: 'string' } } },
      Holder: { type: 'object', properties: { a: ref('Leaf'), b: ref('Leaf'), p: ref('Props') } },
      Leaf: { type: 'string' },
    };
    const s = inlineRefs(ref('Holder'), components);
    assert.deepEqual(s.properties?.a, { type: 'string' });
    assert.equal(s.properties?.a, s.properties?.b, 'non-recursive expansions are shared');
    assert.deepEqual(s.properties?.p, {
      type: 'object',
      properties: { items: { 'x-kubernetes-preserve-unknown-fields': true }, name: { type: 'string' } },
    });
    assert.deepEqual(inlineRefs(ref('Missing'), components), {
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('stripDescriptions removes descriptions but keeps a field named description', () => {
    const s = stripDescriptions({
      description: 'drop',
      type: 'object',
      properties: { description: { type: 'string', description: 'drop' } },
    });
    assert.deepEqual(s, { type: 'object', properties: { description: { type: 'string' } } });
  });

  it('toKindLookup gives the compiler scope, resource and an inlined schema', () => {
    const lookup = toKindLookup(new ChainedSchemaResolver([new BundleSchemaSource(tinyBundle())]));
    const d = lookup.lookup('apps/v1', 'Deployment');
    assert.equal(d?.scope, 'Namespaced');
    assert.equal(d?.resource, 'deployments');
    assert.equal(d?.schema?.properties?.metadata?.properties?.name?.type, 'string');
    assert.equal(lookup.lookup('v1', 'Namespace')?.scope, 'Cluster');
    assert.equal(lookup.lookup('v1', 'Nope'), undefined);
    assert.match(lookup.describe(), /built-in Kubernetes/);
  });

  it('the live cache directory is per server under ~/.cache/kgraph/openapi', () => {
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = '/tmp/xdg';
    try {
      const a = defaultOpenApiCacheDir('https://127.0.0.1:6443');
      assert.match(a, /^\/tmp\/xdg\/kgraph\/openapi\/[0-9a-f]{16}$/);
      assert.notEqual(a, defaultOpenApiCacheDir('https://127.0.0.1:6444'));
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
    }
  });
});
