/**
 * The generated CRD against the real kube-apiserver: it is accepted as a structural schema, its
 * defaults and validations behave as SimpleSchema says, and the live schema source reads it back
 * (with scope from discovery and a disk cache).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} expressions
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { kubeLiveFetcher } from '../../../src/kube/liveSchema.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { statusTypesFromChecked } from '../../../src/schema/crd/celTypeSchema.ts';
import { generateCrdFromSchemaSection } from '../../../src/schema/crd/generate.ts';
import { LiveSchemaSource } from '../../../src/schema/sources/live.ts';
import { inlineRefs } from '../../../src/schema/sources/openapiDocs.ts';
import { ChainedSchemaResolver } from '../../../src/schema/sources/resolver.ts';
import { isUnknownKind } from '../../../src/schema/sources/types.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';

async function eventually<T>(f: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('generated CRD on the real control plane', () => {
  it('is accepted, defaults and validates instances, and is read back by the live source', async () => {
    const cp = await sharedControlPlane();
    const client = new RestClient(cp.kc);
    const group = `${uniqueName('s')}.kgraph.test`;
    const generated = generateCrdFromSchemaSection({
      apiVersion: 'v1alpha1',
      kind: 'WebApp',
      group,
      spec: {
        name: 'string | required=true immutable=true',
        replicas: 'integer | default=2 minimum=1 maximum=5',
        tier: 'string | default=web enum="web,worker"',
        ports: '[]Port | default=[{"name": "http", "port": 80}] listType=map listMapKey=name',
        tags: '[]string | uniqueItems=true',
        ingress: { enabled: 'boolean | default=false', host: 'string | pattern="^[a-z.]+$"' },
        even: 'integer | validation="self % 2 == 0"',
      },
      types: { Port: { name: 'string | required=true', port: 'integer | required=true' } },
      status: { url: 'http://${svc.spec.clusterIP}', ready: '${deploy.status.ready}' },
    });
    assert.deepEqual(generated.diagnostics, []);
    const crd = generated.crd as unknown as KubeObject;
    await client.create(crd);
    const apiVersion = `${group}/v1alpha1`;
    await eventually(async () => {
      const got = await client.get({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: crd.metadata.name,
      });
      const conditions = (got.status as { conditions?: { type: string; status: string }[] } | undefined)
        ?.conditions;
      return conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    }, 'CRD established');

    const ns = 'default';
    const created = await eventually(
      () =>
        client.create({
          apiVersion,
          kind: 'WebApp',
          metadata: { name: uniqueName('app'), namespace: ns },
          spec: { name: 'a' },
        }),
      'instance creation',
    );
    assert.deepEqual(created.spec, {
      name: 'a',
      replicas: 2,
      tier: 'web',
      ports: [{ name: 'http', port: 80 }],
      ingress: { enabled: false },
    });

    const invalid = async (spec: Record<string, unknown>, message: RegExp) => {
      await assert.rejects(
        client.create({
          apiVersion,
          kind: 'WebApp',
          metadata: { name: uniqueName('bad'), namespace: ns },
          spec,
        }),
        message,
      );
    };
    await invalid({ name: 'a', replicas: 9 }, /replicas/);
    await invalid({ name: 'a', tier: 'db' }, /tier/);
    await invalid({ name: 'a', even: 3 }, /validation failed/);
    await invalid({}, /name/);

    const replaced = { ...created, spec: { ...(created.spec as object), name: 'b' } };
    await assert.rejects(client.update(replaced), /field is immutable/);

    const cacheDir = mkdtempSync(join(tmpdir(), 'kgraph-openapi-'));
    const live = kubeLiveFetcher(client, cp.server, { cacheDir });
    const resolver = new ChainedSchemaResolver([new LiveSchemaSource(live.fetcher, cp.server)]);
    await resolver.prepare([apiVersion, 'apps/v1']);
    const r = resolver.resolve(apiVersion, 'WebApp');
    assert.ok(!isUnknownKind(r), isUnknownKind(r) ? r.reason : '');
    if (isUnknownKind(r)) return;
    assert.equal(r.source, 'cluster');
    assert.equal(r.namespaced, true);
    assert.equal(r.plural, 'webapps');
    const schema = inlineRefs(r.schema, r.components);
    assert.equal(schema.properties?.spec?.properties?.replicas?.type, 'integer');
    assert.equal(schema.properties?.status?.properties?.url?.type, 'string');
    assert.equal(schema.properties?.metadata?.properties?.name?.type, 'string', 'metadata is ObjectMeta');
    const deploy = resolver.resolve('apps/v1', 'Deployment');
    assert.ok(!isUnknownKind(deploy) && deploy.source === 'cluster');
    assert.ok(readdirSync(cacheDir).length >= 2, 'documents are cached on disk');
  });

  it('accepts status types inferred from CEL and stores status values of those types', async () => {
    const cp = await sharedControlPlane();
    const client = new RestClient(cp.kc);
    const group = `${uniqueName('t')}.kgraph.test`;
    const statusTypes = statusTypesFromChecked([
      { path: ['replicas'], mode: 'standalone', resultType: 'int' },
      { path: ['ratio'], mode: 'standalone', resultType: 'double' },
      { path: ['since'], mode: 'standalone', resultType: 'google.protobuf.Timestamp' },
      { path: ['hosts'], mode: 'standalone', resultType: 'list<string>' },
      { path: ['labels'], mode: 'standalone', resultType: 'map<string, string>' },
      { path: ['conn', 'url'], mode: 'template' },
      { path: ['raw'], mode: 'standalone', resultType: 'dyn' },
    ]);
    const generated = generateCrdFromSchemaSection(
      {
        apiVersion: 'v1',
        kind: 'Probe',
        group,
        scope: 'Cluster',
        spec: { target: 'string' },
        status: {
          replicas: '${d.status.replicas}',
          ratio: '${1.0 * d.status.replicas}',
          since: '${timestamp(d.metadata.creationTimestamp)}',
          hosts: '${d.spec.hosts}',
          labels: '${d.metadata.labels}',
          conn: { url: 'http://${d.spec.host}' },
          raw: '${d.spec}',
        },
      },
      { statusTypes },
    );
    assert.deepEqual(generated.diagnostics, []);
    const crd = generated.crd as unknown as KubeObject;
    await client.create(crd);
    const apiVersion = `${group}/v1`;
    const name = uniqueName('p');
    const created = await eventually(
      () => client.create({ apiVersion, kind: 'Probe', metadata: { name }, spec: { target: 'x' } }),
      'instance creation',
    );
    const status = {
      replicas: 3,
      ratio: 0.5,
      since: '2026-11-29T23:00:00Z',
      hosts: ['a', 'b'],
      labels: { app: 'x' },
      conn: { url: 'http://h' },
      raw: { any: ['thing', 1] },
      state: 'ACTIVE',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Ready',
          message: '',
          lastTransitionTime: '2026-11-29T23:00:00Z',
          observedGeneration: 1,
        },
      ],
    };
    const written = await client.update({ ...created, status }, { subresource: 'status' });
    assert.deepEqual(written.status, status);
    await assert.rejects(
      client.update({ ...written, status: { ...status, replicas: 'three' } }, { subresource: 'status' }),
      /replicas/,
    );
  });
});
