// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's externalRef watch scenarios (kro externalref_watch_test.go), ported: a change of a referenced
 * object or a new object matching a referenced selector reconciles the instance from the watch (within
 * kro's 3 s, not a requeue timer); selectors with `matchExpressions` take CEL values; `sortBy` orders an
 * external collection; a consumer RGD's externalRef on a producer RGD's kind does not stop the producer's
 * instances from reconciling once the consumer is gone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  eventually,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { absent, cmRef, dataOf, present } from './support.ts';

/** kro's window for a watch-driven reaction (its requeue timer is 5 s). */
const REACTIVE_MS = 3_000;

describe('kro conformance: externalRef watches', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-extwatch');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const define = async (name: string, schema: Record<string, unknown>, resources: unknown[]) => {
    await applyRgd(client, rgd(f, name, schema, resources));
    const r = await waitRgd(client, name, 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
  };
  const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>) =>
    client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: f.ns, ...(labels ? { labels } : {}) },
      data,
    } as KubeObject);
  const statusField = async (kind: string, name: string, field: string) =>
    ((await getInstance(client, f, kind, name))?.status as Record<string, unknown> | undefined)?.[field];

  it('external ref watch triggers re-reconciliation on change', async () => {
    await define('test-extref-watch', { kind: 'TestExtRefWatch', spec: {} }, [
      { id: 'extcm', externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ext-config' } } },
      {
        id: 'managed',
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'managed-config' },
          data: { replicas: '${extcm.data.replicas}' },
        },
      },
    ]);
    await configMap('ext-config', { replicas: '1' });
    await applyInstance(client, instance(f, 'TestExtRefWatch', 'test-instance', {}));
    await waitState(client, f, 'TestExtRefWatch', 'test-instance', 'ACTIVE');
    await present(client, cmRef(f.ns, 'managed-config'), (o) => dataOf(o).replicas === '1');
    await client.patch(cmRef(f.ns, 'ext-config'), { data: { replicas: '3' } }, { type: 'merge' });
    await present(client, cmRef(f.ns, 'managed-config'), (o) => dataOf(o).replicas === '3', REACTIVE_MS);
  });

  it('external collection with matchExpressions CEL resolves dynamic values', async () => {
    await define(
      'test-extcoll-matchexpr',
      {
        kind: 'TestExtCollMatchExpr',
        spec: { teamName: 'string' },
        status: { configCount: '${string(size(extconfigs))}' },
      },
      [
        {
          id: 'extconfigs',
          externalRef: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              selector: {
                matchExpressions: [{ key: 'team', operator: 'In', values: ['${schema.spec.teamName}'] }],
              },
            },
          },
        },
      ],
    );
    await configMap('bravo-config-1', { key: 'value1' }, { team: 'bravo' });
    await configMap('bravo-config-2', { key: 'value2' }, { team: 'bravo' });
    await configMap('charlie-config-1', { key: 'other' }, { team: 'charlie' });
    await applyInstance(client, instance(f, 'TestExtCollMatchExpr', 'test-matchexpr', { teamName: 'bravo' }));
    await waitState(
      client,
      f,
      'TestExtCollMatchExpr',
      'test-matchexpr',
      'ACTIVE',
      (o) => (o.status as { configCount?: string }).configCount === '2',
    );
  });

  it('external collection watch reacts to new matching resources', async () => {
    await define(
      'test-extcoll-watch',
      { kind: 'TestExtCollWatch', spec: {}, status: { configCount: '${string(size(extconfigs))}' } },
      [
        {
          id: 'extconfigs',
          externalRef: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { selector: { matchLabels: { 'watch-test': 'reactive' } } },
          },
        },
      ],
    );
    await configMap('alpha-config-1', { key: 'value1' }, { 'watch-test': 'reactive' });
    await applyInstance(client, instance(f, 'TestExtCollWatch', 'test-instance', {}));
    await waitState(
      client,
      f,
      'TestExtCollWatch',
      'test-instance',
      'ACTIVE',
      (o) => (o.status as { configCount?: string }).configCount === '1',
    );
    await configMap('alpha-config-2', { key: 'value2' }, { 'watch-test': 'reactive' });
    await eventually(
      'configCount 2 from the watch',
      async () =>
        (await statusField('TestExtCollWatch', 'test-instance', 'configCount')) === '2' ? true : undefined,
      REACTIVE_MS,
    );
  });

  it('external collection sortBy orders resources by a data field', async () => {
    await define(
      'test-extcoll-sortby',
      {
        kind: 'TestExtCollSortBy',
        spec: {},
        status: {
          sortedNames: '${extconfigs.sortBy(c, c.data.priority).map(c, c.metadata.name).join(",")}',
          configCount: '${string(size(extconfigs))}',
        },
      },
      [
        {
          id: 'extconfigs',
          externalRef: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { selector: { matchLabels: { app: 'sorttest' } } },
          },
        },
      ],
    );
    await configMap('cm-charlie', { priority: '1' }, { app: 'sorttest' });
    await configMap('cm-alpha', { priority: '2' }, { app: 'sorttest' });
    await configMap('cm-bravo', { priority: '3' }, { app: 'sorttest' });
    await applyInstance(client, instance(f, 'TestExtCollSortBy', 'test-sortby', {}));
    const o = await waitState(
      client,
      f,
      'TestExtCollSortBy',
      'test-sortby',
      'ACTIVE',
      (i) => (i.status as { configCount?: string }).configCount === '3',
    );
    assert.equal((o.status as { sortedNames?: string }).sortedNames, 'cm-charlie,cm-alpha,cm-bravo');
  });

  it('external ref to a chained RGD keeps the producer instance reconciling after consumer deletion', async () => {
    await define('test-chained-producer', { kind: 'WatchedDatabase', spec: { value: 'string' } }, [
      {
        id: 'managed',
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'watched-database-config' },
          data: { value: '${schema.spec.value}' },
        },
      },
    ]);
    await applyInstance(client, instance(f, 'WatchedDatabase', 'watched-db', { value: 'one' }));
    await waitState(client, f, 'WatchedDatabase', 'watched-db', 'ACTIVE');
    await present(client, cmRef(f.ns, 'watched-database-config'), (o) => dataOf(o).value === 'one');

    await define('test-chained-consumer', { kind: 'DatabaseObserver', spec: {} }, [
      {
        id: 'database',
        externalRef: {
          apiVersion: `${f.group}/v1alpha1`,
          kind: 'WatchedDatabase',
          metadata: { name: 'watched-db' },
        },
      },
      {
        id: 'managed',
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'database-observer-config' },
          data: { value: '${database.spec.value}' },
        },
      },
    ]);
    await applyInstance(client, instance(f, 'DatabaseObserver', 'db-observer', {}));
    await waitState(client, f, 'DatabaseObserver', 'db-observer', 'ACTIVE');
    await present(client, cmRef(f.ns, 'database-observer-config'), (o) => dataOf(o).value === 'one');
    const consumer = {
      apiVersion: `${f.group}/v1alpha1`,
      kind: 'DatabaseObserver',
      namespace: f.ns,
      name: 'db-observer',
    };
    await client.delete(consumer);
    await absent(client, consumer);
    await applyInstance(client, instance(f, 'WatchedDatabase', 'watched-db', { value: 'two' }));
    await present(client, cmRef(f.ns, 'watched-database-config'), (o) => dataOf(o).value === 'two', 5_000);
  });
});
