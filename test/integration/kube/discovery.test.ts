import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { watchCRDs } from '../../../src/kube/crdWatch.ts';
import { NoKindMatchError } from '../../../src/kube/discovery.ts';
import { OpenApiV3, resolveRef } from '../../../src/kube/openapi.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import { eventually, installWidgetCRD, testClient } from '../../support/kube.ts';

let client: RestClient;
const dirs: string[] = [];
before(async () => {
  client = await testClient();
});
after(() => {
  client.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('discovery', () => {
  it('maps kinds to resources with scope, verbs and subresources', async () => {
    const cm = await client.discovery.resolveKind('v1', 'ConfigMap');
    assert.equal(cm.plural, 'configmaps');
    assert.equal(cm.namespaced, true);
    assert.ok(cm.verbs.includes('patch'));
    assert.ok(cm.shortNames.includes('cm'));

    const ns = await client.discovery.resolveKind('v1', 'Namespace');
    assert.equal(ns.plural, 'namespaces');
    assert.equal(ns.namespaced, false);
    assert.ok(ns.subresources.includes('status'));

    const dep = await client.discovery.resolveKind('apps/v1', 'Deployment');
    assert.equal(dep.plural, 'deployments');
    assert.deepEqual([...dep.subresources].sort(), ['scale', 'status']);

    assert.equal((await client.discovery.resolveResource('v1', 'cm'))?.kind, 'ConfigMap');
  });

  it('lists groups with preferred versions', async () => {
    const groups = await client.discovery.groups();
    assert.equal(groups[0]?.name, '');
    assert.deepEqual(groups[0]?.versions, ['v1']);
    const apps = groups.find((g) => g.name === 'apps');
    assert.equal(apps?.preferredVersion, 'v1');
    const all = await client.discovery.preferredResources();
    assert.ok(all.some((r) => r.kind === 'ClusterRole' && !r.namespaced));
  });

  it('reports unknown kinds and group-versions as NoKindMatchError', async () => {
    await assert.rejects(client.discovery.resolveKind('v1', 'NoSuchKind'), NoKindMatchError);
    await assert.rejects(client.discovery.resolveKind('nope.example.com/v1', 'Thing'), /not served/);
  });

  it('caches group-versions: resolving again sends no request', async () => {
    await client.discovery.resolveKind('rbac.authorization.k8s.io/v1', 'Role');
    const before = client.counters.get('get');
    await client.discovery.resolveKind('rbac.authorization.k8s.io/v1', 'Role');
    await client.discovery.resolveKind('rbac.authorization.k8s.io/v1', 'RoleBinding');
    assert.equal(client.counters.get('get'), before);
    client.discovery.invalidate('rbac.authorization.k8s.io/v1');
    await client.discovery.resolveKind('rbac.authorization.k8s.io/v1', 'Role');
    assert.equal(client.counters.get('get'), before + 1);
  });

  it('the CRD watch invalidates caches and reports a new CRD', async () => {
    const changes: string[] = [];
    const crds = watchCRDs(client, {
      discovery: client.discovery,
      onChange: (crd, change) => changes.push(`${change} ${crd.metadata.name}`),
    });
    try {
      await crds.waitForSync(20_000);
      const w = await installWidgetCRD(client);
      await eventually(
        'CRD added',
        async () => changes.includes(`added widgets.${w.group}`) || undefined,
        20_000,
      );
      assert.ok((await client.discovery.resources(w.apiVersion))?.some((r) => r.kind === 'Widget'));
    } finally {
      await crds.stop();
    }
  });

  it('finds a CRD kind once it is established', async () => {
    const w = await installWidgetCRD(client);
    const info = await client.discovery.resolveKind(w.apiVersion, 'Widget');
    assert.equal(info.plural, 'widgets');
    assert.equal(info.namespaced, true);
    assert.deepEqual(info.subresources, ['status']);
  });
});

describe('OpenAPI v3', () => {
  it('serves the ConfigMap schema and caches documents in memory and on disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-openapi-'));
    dirs.push(dir);
    const api = new OpenApiV3(client, { cacheDir: dir });
    const cm = await api.schemaFor('v1', 'ConfigMap');
    assert.ok(cm, 'ConfigMap schema found');
    assert.equal(cm.name, 'io.k8s.api.core.v1.ConfigMap');
    const props = cm.schema.properties as Record<string, Record<string, unknown>>;
    assert.equal(props.data?.type, 'object');
    assert.ok(props.metadata, 'has metadata');
    // $ref resolution inside the same document
    const metaRef = JSON.stringify(props.metadata).match(/#\/components\/schemas\/[^"]+/)?.[0];
    assert.ok(metaRef);
    assert.ok(resolveRef(cm.document, metaRef)?.properties, 'ObjectMeta resolved');
    assert.equal(api.documentFetches, 1);

    const again = await api.schemaFor('v1', 'Secret');
    assert.ok(again);
    assert.equal(api.documentFetches, 1, 'same group-version document reused from memory');
    assert.equal(readdirSync(dir).length, 1, 'written to the disk cache');

    const fresh = new OpenApiV3(client, { cacheDir: dir });
    assert.ok(await fresh.schemaFor('v1', 'ConfigMap'));
    assert.equal(fresh.documentFetches, 0, 'read from the disk cache');
  });

  it('publishes a new CRD after invalidation', async () => {
    const api = new OpenApiV3(client);
    await api.index();
    const w = await installWidgetCRD(client);
    // The OpenAPI controller publishes CRDs asynchronously.
    const deadline = Date.now() + 30_000;
    let schema: Awaited<ReturnType<OpenApiV3['schemaFor']>>;
    for (;;) {
      api.invalidate();
      schema = await api.schemaFor(w.apiVersion, 'Widget');
      if (schema || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(schema, 'Widget schema published');
    const spec = (schema.schema.properties as Record<string, { properties?: Record<string, unknown> }>).spec;
    assert.ok(spec?.properties?.size);
  });

  it('returns undefined for an unknown group-version', async () => {
    const api = new OpenApiV3(client);
    assert.equal(await api.schemaFor('nope.example.com/v1', 'Thing'), undefined);
  });
});
