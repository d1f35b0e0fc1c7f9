// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's forEach collection scenarios (kro collection_test.go), ported: one resource per element, the
 * cartesian product of several iterators, includeWhen and readyWhen on a collection, collections that
 * read a resource or another collection, scale up and down, deletion, drift, several namespaces, and
 * dependents of an empty collection. Every scenario ends as kro's do: instance deleted, then its RGD.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import { testNamespace } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import {
  absent,
  cmRef,
  dataOf,
  deleteInstanceThenRgd,
  handStatusFixture,
  holdsFor,
  present,
  staysAbsent,
} from './support.ts';

const eachValue = (id: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  id,
  template: cm('${schema.spec.name}-${value}', data),
  forEach: [{ value: '${schema.spec.values}' }],
  ...extra,
});
const podRef = (namespace: string, name: string) => ({ apiVersion: 'v1', kind: 'Pod', namespace, name });
const sleeper = (name: string, command: string[]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { restartPolicy: 'Never', containers: [{ name: 'worker', image: 'busybox:latest', command }] },
});

describe('kro conformance: forEach collections', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-coll');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  /** Applies the RGD and waits until it is Ready and Active, as every kro scenario does first. */
  const define = async (name: string, schema: Record<string, unknown>, resources: unknown[]) => {
    await applyRgd(client, rgd(f, name, schema, resources));
    const r = await waitRgd(client, name, 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
  };
  const hasData = (name: string, want: Record<string, string>, ns = f.ns) =>
    present(client, cmRef(ns, name), (o) => Object.entries(want).every(([k, v]) => dataOf(o)[k] === v));
  const setSpec = async (kind: string, name: string, spec: Record<string, unknown>) =>
    applyInstance(client, instance(f, kind, name, spec));
  const statusOf = async (kind: string, name: string) =>
    ((await getInstance(client, f, kind, name))?.status ?? {}) as Record<string, unknown>;

  it('creates one ConfigMap per element of the list', async () => {
    const name = 'test-multi-cm';
    await define('kro-coll-multi', { kind: 'MultiConfigMap', spec: { name: 'string', values: '[]string' } }, [
      eachValue('configmaps', { key: '${value}' }),
    ]);
    await setSpec('MultiConfigMap', name, { name, values: ['alpha', 'beta', 'gamma'] });
    await waitState(client, f, 'MultiConfigMap', name, 'ACTIVE');
    for (const v of ['alpha', 'beta', 'gamma']) await hasData(`${name}-${v}`, { key: v });
    await deleteInstanceThenRgd(client, f, 'MultiConfigMap', name, 'kro-coll-multi');
  });

  it('creates the cartesian product of two iterators', async () => {
    const name = 'test-cartesian';
    await define(
      'kro-coll-cartesian',
      { kind: 'CartesianConfigMaps', spec: { name: 'string', regions: '[]string', tiers: '[]string' } },
      [
        {
          id: 'configmaps',
          template: cm('${schema.spec.name}-${region}-${tier}', { region: '${region}', tier: '${tier}' }),
          forEach: [{ region: '${schema.spec.regions}' }, { tier: '${schema.spec.tiers}' }],
        },
      ],
    );
    await setSpec('CartesianConfigMaps', name, { name, regions: ['us', 'eu'], tiers: ['web', 'api'] });
    await waitState(client, f, 'CartesianConfigMaps', name, 'ACTIVE');
    for (const region of ['us', 'eu']) {
      for (const tier of ['web', 'api']) await hasData(`${name}-${region}-${tier}`, { region, tier });
    }
    await deleteInstanceThenRgd(client, f, 'CartesianConfigMaps', name, 'kro-coll-cartesian');
  });

  it('creates no item of a collection whose includeWhen is false', async () => {
    const name = 'test-disabled';
    await define(
      'kro-coll-conditional',
      { kind: 'ConditionalCollection', spec: { name: 'string', values: '[]string', enabled: 'boolean' } },
      [eachValue('configmaps', { key: '${value}' }, { includeWhen: ['${schema.spec.enabled}'] })],
    );
    await setSpec('ConditionalCollection', name, { name, values: ['alpha', 'beta'], enabled: false });
    await waitState(client, f, 'ConditionalCollection', name, 'ACTIVE');
    await staysAbsent(client, cmRef(f.ns, `${name}-alpha`));
    await staysAbsent(client, cmRef(f.ns, `${name}-beta`), 0);
    await deleteInstanceThenRgd(client, f, 'ConditionalCollection', name, 'kro-coll-conditional');
  });

  it('creates and deletes the items as the collection’s includeWhen flips', async () => {
    const name = 'test-toggle';
    await define(
      'kro-coll-toggle',
      { kind: 'ToggleCollection', spec: { name: 'string', values: '[]string', enabled: 'boolean' } },
      [eachValue('configs', { key: '${value}' }, { includeWhen: ['${schema.spec.enabled}'] })],
    );
    await setSpec('ToggleCollection', name, { name, values: ['alpha', 'beta'], enabled: false });
    await waitState(client, f, 'ToggleCollection', name, 'ACTIVE');
    await staysAbsent(client, cmRef(f.ns, `${name}-alpha`));
    await staysAbsent(client, cmRef(f.ns, `${name}-beta`), 0);
    await setSpec('ToggleCollection', name, { name, values: ['alpha', 'beta'], enabled: true });
    for (const v of ['alpha', 'beta']) await hasData(`${name}-${v}`, { key: v });
    await setSpec('ToggleCollection', name, { name, values: ['alpha', 'beta'], enabled: false });
    for (const v of ['alpha', 'beta']) await absent(client, cmRef(f.ns, `${name}-${v}`));
    await deleteInstanceThenRgd(client, f, 'ToggleCollection', name, 'kro-coll-toggle');
  });

  it('fills every item from a plain resource the collection reads', async () => {
    const name = 'test-dep';
    await define(
      'kro-coll-dependency',
      { kind: 'CollectionWithDependency', spec: { name: 'string', values: '[]string' } },
      [
        { id: 'baseConfig', template: cm('${schema.spec.name}-base', { version: 'v1.0.0' }) },
        eachValue('configs', { key: '${value}', version: '${baseConfig.data.version}' }),
      ],
    );
    await setSpec('CollectionWithDependency', name, { name, values: ['one', 'two'] });
    await waitState(client, f, 'CollectionWithDependency', name, 'ACTIVE');
    await hasData(`${name}-base`, { version: 'v1.0.0' });
    for (const v of ['one', 'two']) await hasData(`${name}-${v}`, { key: v, version: 'v1.0.0' });
    await deleteInstanceThenRgd(client, f, 'CollectionWithDependency', name, 'kro-coll-dependency');
  });

  it('iterates over a list chosen by an expression that reads another resource', async () => {
    const name = 'test-chaining';
    await define(
      'kro-coll-chaining',
      { kind: 'CollectionChaining', spec: { name: 'string', values: '[]string' } },
      [
        {
          id: 'baseConfig',
          template: cm('${schema.spec.name}-base', { enabled: 'true', prefix: 'chained' }),
        },
        {
          id: 'chainedConfigs',
          template: cm('${schema.spec.name}-${val}', { key: '${val}', prefix: '${baseConfig.data.prefix}' }),
          forEach: [{ val: '${has(baseConfig.data.enabled) ? schema.spec.values : []}' }],
        },
      ],
    );
    await setSpec('CollectionChaining', name, { name, values: ['one', 'two'] });
    await waitState(client, f, 'CollectionChaining', name, 'ACTIVE');
    await hasData(`${name}-base`, { enabled: 'true', prefix: 'chained' });
    for (const v of ['one', 'two']) await hasData(`${name}-${v}`, { key: v, prefix: 'chained' });
    await deleteInstanceThenRgd(client, f, 'CollectionChaining', name, 'kro-coll-chaining');
  });

  it('iterates over the items of another collection', async () => {
    const name = 'test-c2c';
    await define(
      'kro-coll-to-coll',
      { kind: 'CollectionToCollection', spec: { name: 'string', values: '[]string' } },
      [
        {
          id: 'firstConfigs',
          template: cm('${schema.spec.name}-first-${val}', { key: '${val}', source: 'first-collection' }),
          forEach: [{ val: '${schema.spec.values}' }],
        },
        {
          id: 'secondConfigs',
          template: cm('${schema.spec.name}-second-${config.data.key}', {
            originalKey: '${config.data.key}',
            originalSource: '${config.data.source}',
            source: 'second-collection',
          }),
          forEach: [{ config: '${firstConfigs}' }],
        },
      ],
    );
    await setSpec('CollectionToCollection', name, { name, values: ['alpha', 'beta'] });
    await waitState(client, f, 'CollectionToCollection', name, 'ACTIVE');
    for (const v of ['alpha', 'beta'])
      await hasData(`${name}-first-${v}`, { key: v, source: 'first-collection' });
    for (const v of ['alpha', 'beta']) {
      await hasData(`${name}-second-${v}`, {
        originalKey: v,
        originalSource: 'first-collection',
        source: 'second-collection',
      });
    }
    await deleteInstanceThenRgd(client, f, 'CollectionToCollection', name, 'kro-coll-to-coll');
  });

  it('reaches ACTIVE with an empty list', async () => {
    const name = 'test-empty';
    await define(
      'kro-coll-empty',
      { kind: 'EmptyCollection', spec: { name: 'string', values: '[]string' } },
      [eachValue('configmaps', { key: '${value}' })],
    );
    await setSpec('EmptyCollection', name, { name, values: [] });
    await waitState(client, f, 'EmptyCollection', name, 'ACTIVE');
    await deleteInstanceThenRgd(client, f, 'EmptyCollection', name, 'kro-coll-empty');
  });

  it('scales a three-level chain of collections up and down', async () => {
    const name = 'test-deep';
    await define(
      'kro-coll-deep',
      {
        kind: 'DeepChain',
        spec: { name: 'string', items: '[]string', prefix: 'string' },
        status: {
          level1Count: '${string(size(level1Configs))}',
          level2Count: '${string(size(level2Configs))}',
          podCount: '${string(size(finalPods))}',
        },
      },
      [
        {
          id: 'baseConfig',
          template: cm('${schema.spec.name}-base', {
            prefix: '${schema.spec.prefix}',
            itemCount: '${string(size(schema.spec.items))}',
          }),
        },
        {
          id: 'level1Configs',
          template: cm('${schema.spec.name}-l1-${entry}', {
            entry: '${entry}',
            prefix: '${baseConfig.data.prefix}',
            level: '1',
          }),
          forEach: [{ entry: '${schema.spec.items}' }],
        },
        {
          id: 'level2Configs',
          template: cm('${schema.spec.name}-l2-${l1.data.entry}', {
            sourceEntry: '${l1.data.entry}',
            sourcePrefix: '${l1.data.prefix}',
            level: '2',
          }),
          forEach: [{ l1: '${level1Configs}' }],
        },
        {
          id: 'summaryConfig',
          template: cm('${schema.spec.name}-summary', {
            level1Count: '${string(size(level1Configs))}',
            level2Count: '${string(size(level2Configs))}',
          }),
        },
        {
          id: 'finalPods',
          template: sleeper('${schema.spec.name}-pod-${l2.data.sourceEntry}', [
            'sh',
            '-c',
            'echo ${summaryConfig.data.level2Count} items && sleep 3600',
          ]),
          forEach: [{ l2: '${level2Configs}' }],
        },
      ],
    );
    const workerPod = (item: string) =>
      present(
        client,
        podRef(f.ns, `${name}-pod-${item}`),
        (p) => (p.spec as { containers: { name: string }[] }).containers[0]?.name === 'worker',
      );
    await setSpec('DeepChain', name, { name, items: ['a', 'b'], prefix: 'test' });
    await waitState(client, f, 'DeepChain', name, 'ACTIVE');
    await eventuallyCounts('2');
    await hasData(`${name}-base`, { prefix: 'test', itemCount: '2' });
    for (const i of ['a', 'b']) await hasData(`${name}-l1-${i}`, { entry: i, prefix: 'test', level: '1' });
    for (const i of ['a', 'b'])
      await hasData(`${name}-l2-${i}`, { sourceEntry: i, sourcePrefix: 'test', level: '2' });
    await hasData(`${name}-summary`, { level1Count: '2', level2Count: '2' });
    for (const i of ['a', 'b']) await workerPod(i);

    await setSpec('DeepChain', name, { name, items: ['a', 'b', 'c'], prefix: 'test' });
    await hasData(`${name}-l1-c`, { entry: 'c' });
    await hasData(`${name}-l2-c`, { sourceEntry: 'c' });
    await hasData(`${name}-summary`, { level1Count: '3', level2Count: '3' });
    for (const i of ['a', 'b', 'c']) await workerPod(i);
    await eventuallyCounts('3');

    await setSpec('DeepChain', name, { name, items: ['a', 'c'], prefix: 'test' });
    await absent(client, cmRef(f.ns, `${name}-l1-b`));
    await absent(client, cmRef(f.ns, `${name}-l2-b`));
    await absent(client, podRef(f.ns, `${name}-pod-b`));
    await hasData(`${name}-summary`, { level1Count: '2', level2Count: '2' });
    for (const i of ['a', 'c']) await hasData(`${name}-l1-${i}`, { entry: i });
    for (const i of ['a', 'c']) await workerPod(i);
    await eventuallyCounts('2');
    await deleteInstanceThenRgd(client, f, 'DeepChain', name, 'kro-coll-deep');

    async function eventuallyCounts(n: string) {
      await present(
        client,
        { apiVersion: `${f.group}/v1alpha1`, kind: 'DeepChain', namespace: f.ns, name },
        (o) => {
          const s = (o.status ?? {}) as Record<string, unknown>;
          return s.level1Count === n && s.level2Count === n && s.podCount === n;
        },
      );
    }
  });

  it('blocks a dependent until every item of the collection meets readyWhen', async () => {
    // kro writes the Pods' phase by hand; on a plane with kubelets they would run by themselves.
    const h = await handStatusFixture('kro-coll-dag');
    try {
      const name = 'test-dag';
      await applyRgd(
        h.client,
        rgd(
          h,
          'kro-coll-dag-blocking',
          { kind: 'WorkerCluster', spec: { name: 'string', workers: '[]string' } },
          [
            {
              id: 'workerPods',
              template: sleeper('${schema.spec.name}-worker-${worker}', ['sh', '-c', 'sleep 3600']),
              forEach: [{ worker: '${schema.spec.workers}' }],
              readyWhen: ["${each.status.phase == 'Running'}"],
            },
            {
              id: 'coordinator',
              template: cm('${schema.spec.name}-coordinator', {
                workerCount: '${string(size(workerPods))}',
                firstWorker: '${workerPods[0].metadata.name}',
                allWorkerIPs:
                  "${workerPods.map(w, has(w.status.podIP) ? w.status.podIP : 'pending').join(',')}",
              }),
            },
          ],
        ),
      );
      const r = await waitRgd(h.client, 'kro-coll-dag-blocking', 'Ready', 'True');
      assert.equal((r.status as { state?: string }).state, 'Active');
      const workers = ['alpha', 'beta', 'gamma'];
      await applyInstance(h.client, instance(h, 'WorkerCluster', name, { name, workers }));
      for (const w of workers) await present(h.client, podRef(h.ns, `${name}-worker-${w}`));
      await waitState(h.client, h, 'WorkerCluster', name, 'IN_PROGRESS');
      const coordinator = cmRef(h.ns, `${name}-coordinator`);
      await staysAbsent(h.client, coordinator);
      const run = async (w: string, ip: string) => {
        const pod = await h.client.get(podRef(h.ns, `${name}-worker-${w}`));
        await h.client.update(
          { ...pod, status: { ...(pod.status as object), phase: 'Running', podIP: ip } },
          { subresource: 'status' },
        );
      };
      for (const w of workers.slice(0, 2)) await run(w, `10.0.0.${w.length}`);
      await staysAbsent(h.client, coordinator);
      await run('gamma', '10.0.0.99');
      await present(
        h.client,
        coordinator,
        (o) => dataOf(o).workerCount === '3' && (dataOf(o).firstWorker ?? '').includes('worker-alpha'),
      );
      await waitState(h.client, h, 'WorkerCluster', name, 'ACTIVE');
      await deleteInstanceThenRgd(h.client, h, 'WorkerCluster', name, 'kro-coll-dag-blocking');
    } finally {
      await h.stop();
    }
  });

  it('evaluates readyWhen on each item through `each`', async () => {
    const name = 'test-ready';
    await define(
      'kro-coll-readywhen',
      { kind: 'ReadyWhenCollection', spec: { name: 'string', values: '[]string' } },
      [
        eachValue(
          'configs',
          { key: '${value}', ready: 'true' },
          { readyWhen: ["${each.data.ready == 'true'}"] },
        ),
      ],
    );
    await setSpec('ReadyWhenCollection', name, { name, values: ['one', 'two', 'three'] });
    await waitState(client, f, 'ReadyWhenCollection', name, 'ACTIVE');
    for (const v of ['one', 'two', 'three']) await hasData(`${name}-${v}`, { key: v, ready: 'true' });
    await deleteInstanceThenRgd(client, f, 'ReadyWhenCollection', name, 'kro-coll-readywhen');
  });

  it('creates the items of a collection without readyWhen', async () => {
    const name = 'test-no-ready';
    await define(
      'kro-coll-no-readywhen',
      { kind: 'NoReadyWhenCollection', spec: { name: 'string', values: '[]string' } },
      [eachValue('configs', { key: '${value}' })],
    );
    await setSpec('NoReadyWhenCollection', name, { name, values: ['a', 'b', 'c'] });
    await waitState(client, f, 'NoReadyWhenCollection', name, 'ACTIVE');
    for (const v of ['a', 'b', 'c']) await hasData(`${name}-${v}`, { key: v });
    await deleteInstanceThenRgd(client, f, 'NoReadyWhenCollection', name, 'kro-coll-no-readywhen');
  });

  it('deletes every item with the instance', async () => {
    const name = 'test-deletion';
    const values = ['one', 'two', 'three'];
    await define(
      'kro-coll-deletion',
      { kind: 'DeletionTest', spec: { name: 'string', values: '[]string' } },
      [eachValue('configs', { key: '${value}' })],
    );
    await setSpec('DeletionTest', name, { name, values });
    await waitState(client, f, 'DeletionTest', name, 'ACTIVE');
    for (const v of values) await hasData(`${name}-${v}`, { key: v });
    const inst = { apiVersion: `${f.group}/v1alpha1`, kind: 'DeletionTest', namespace: f.ns, name };
    await client.delete(inst);
    await absent(client, inst);
    for (const v of values) await absent(client, cmRef(f.ns, `${name}-${v}`));
    await client.delete({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      name: 'kro-coll-deletion',
    });
    await absent(client, {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      name: 'kro-coll-deletion',
    });
  });

  it('restores a collection item edited by someone else', async () => {
    const name = 'test-drift';
    await define(
      'kro-coll-drift',
      { kind: 'DriftTest', spec: { name: 'string', items: '[]string', prefix: 'string' } },
      [
        {
          id: 'configs',
          template: cm('${schema.spec.name}-${entry}', {
            entry: '${entry}',
            prefix: '${schema.spec.prefix}',
            static: 'unchanged',
          }),
          forEach: [{ entry: '${schema.spec.items}' }],
        },
      ],
    );
    await setSpec('DriftTest', name, { name, items: ['alpha', 'beta'], prefix: 'original' });
    for (const i of ['alpha', 'beta']) {
      await hasData(`${name}-${i}`, { entry: i, prefix: 'original', static: 'unchanged' });
    }
    const alpha = await client.get(cmRef(f.ns, `${name}-alpha`));
    await client.update({ ...alpha, data: { ...dataOf(alpha), prefix: 'DRIFTED', extra: 'unexpected' } });
    await hasData(`${name}-alpha`, { prefix: 'original', entry: 'alpha', static: 'unchanged' });
    await deleteInstanceThenRgd(client, f, 'DriftTest', name, 'kro-coll-drift');
  });

  it('keeps the instance IN_PROGRESS until every item meets readyWhen, with no dependents', async () => {
    const name = 'test-standalone';
    const values = ['alpha', 'beta', 'gamma'];
    await define(
      'kro-coll-readywhen-no-deps',
      {
        kind: 'StandaloneCollection',
        spec: { name: 'string', values: '[]string', makeReady: 'boolean | default=false' },
      },
      [
        eachValue(
          'configs',
          { key: '${value}', ready: '${string(schema.spec.makeReady)}' },
          { readyWhen: ["${each.data.ready == 'true'}"] },
        ),
      ],
    );
    await setSpec('StandaloneCollection', name, { name, values, makeReady: false });
    for (const v of values) await hasData(`${name}-${v}`, { key: v, ready: 'false' });
    await waitState(client, f, 'StandaloneCollection', name, 'IN_PROGRESS');
    await holdsFor(
      'instance IN_PROGRESS',
      async () => (await statusOf('StandaloneCollection', name)).state === 'IN_PROGRESS',
    );
    await setSpec('StandaloneCollection', name, { name, values, makeReady: true });
    for (const v of values) await hasData(`${name}-${v}`, { ready: 'true' });
    await waitState(client, f, 'StandaloneCollection', name, 'ACTIVE');
    await deleteInstanceThenRgd(client, f, 'StandaloneCollection', name, 'kro-coll-readywhen-no-deps');
  });

  it('deletes the items of a collection spread over two namespaces', async () => {
    const name = 'test-cross-ns';
    const alt = await testNamespace('kro-coll-alt');
    await define(
      'kro-coll-cross-ns',
      { kind: 'CrossNamespaceCollection', spec: { name: 'string', ns1: 'string', ns2: 'string' } },
      [
        {
          id: 'configmaps',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: '${schema.spec.name}-item-${string(i)}',
              namespace: '${i % 2 == 0 ? schema.spec.ns1 : schema.spec.ns2}',
            },
            data: { index: '${string(i)}' },
          },
          forEach: [{ i: '${lists.range(6)}' }],
        },
      ],
    );
    await setSpec('CrossNamespaceCollection', name, { name, ns1: f.ns, ns2: alt });
    for (const i of [0, 2, 4]) await hasData(`${name}-item-${i}`, { index: String(i) });
    for (const i of [1, 3, 5]) await hasData(`${name}-item-${i}`, { index: String(i) }, alt);
    await waitState(client, f, 'CrossNamespaceCollection', name, 'ACTIVE');
    const inst = {
      apiVersion: `${f.group}/v1alpha1`,
      kind: 'CrossNamespaceCollection',
      namespace: f.ns,
      name,
    };
    await client.delete(inst);
    await absent(client, inst);
    for (const i of [0, 2, 4]) await absent(client, cmRef(f.ns, `${name}-item-${i}`));
    for (const i of [1, 3, 5]) await absent(client, cmRef(alt, `${name}-item-${i}`));
    const r = { apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name: 'kro-coll-cross-ns' };
    await client.delete(r);
    await absent(client, r);
  });

  it('lets a dependent read the size of an empty collection', async () => {
    const name = 'test-empty-dep';
    await define('kro-coll-empty-dep', { kind: 'EmptyCollectionDep', spec: { names: '[]string' } }, [
      {
        id: 'entries',
        template: cm('${schema.metadata.name}-entry-${name}', { name: '${name}' }),
        forEach: [{ name: '${schema.spec.names}' }],
      },
      {
        id: 'summary',
        template: cm('${schema.metadata.name}-summary', { itemCount: '${string(size(entries))}' }),
      },
    ]);
    await setSpec('EmptyCollectionDep', name, { names: [] });
    await waitState(client, f, 'EmptyCollectionDep', name, 'ACTIVE');
    await hasData(`${name}-summary`, { itemCount: '0' });
    await deleteInstanceThenRgd(client, f, 'EmptyCollectionDep', name, 'kro-coll-empty-dep');
  });
});
