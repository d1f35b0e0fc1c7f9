// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  celHost,
  evaluate,
  type KubeObject,
  type NodeResult,
  observedFromObjects,
} from '../../../src/runtime/index.ts';
import { buildGraph } from './support/buildGraph.ts';

function node(result: { nodes: NodeResult[] }, path: string): NodeResult {
  const n = result.nodes.find((r) => r.path === path);
  assert.ok(n, `node ${path} in result`);
  return n;
}

function cm(name: string, data: Record<string, string> = {}, namespace = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

const none = observedFromObjects([]);

describe('includeWhen and contagion', () => {
  const graph = (on: boolean) =>
    buildGraph([
      { id: 'flag', kind: 'def', payload: { on } },
      { id: 'a', kind: 'template', includeWhen: ['${flag.on}'], payload: cm('a') as never },
      { id: 'b', kind: 'template', payload: { ...cm('b'), data: { from: '${a.metadata.name}' } } },
      {
        id: 'c',
        kind: 'template',
        includeWhen: ['${true}'],
        payload: { ...cm('c'), data: { from: '${b.metadata.name}' } },
      },
      { id: 'd', kind: 'template', payload: cm('d') as never },
    ]);

  it('excludes a, and spreads to b and c, leaving independent d alone', () => {
    const r = evaluate(graph(false), { observed: none });
    assert.equal(node(r, 'a').state, 'excluded');
    assert.equal(node(r, 'a').excludedBy, 'a');
    assert.equal(node(r, 'b').state, 'excluded');
    assert.equal(node(r, 'b').excludedBy, 'a');
    assert.equal(node(r, 'c').state, 'excluded');
    assert.equal(node(r, 'c').excludedBy, 'b');
    assert.deepEqual(node(r, 'c').objects, []);
    assert.equal(node(r, 'd').state, 'waiting');
    assert.equal(node(r, 'd').objects.length, 1);
    // Excluded nodes count as ready.
    assert.equal(node(r, 'a').ready, true);
  });

  it('includes the whole chain when the flag is on', () => {
    const observed = observedFromObjects([cm('a'), cm('b', { from: 'a' })]);
    const r = evaluate(graph(true), { observed });
    assert.deepEqual(
      r.nodes.map((n) => [n.id, n.state]),
      [
        ['flag', 'ready'],
        ['a', 'ready'],
        ['b', 'ready'],
        ['c', 'waiting'],
        ['d', 'waiting'],
      ],
    );
    assert.deepEqual(node(r, 'c').objects[0]!.value, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default' },
      data: { from: 'b' },
    });
  });

  it('ANDs the expressions, and data pending is not false', () => {
    const g = buildGraph([
      { id: 'src', kind: 'ref', payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'src' } } },
      {
        id: 'x',
        kind: 'template',
        includeWhen: ['${true}', "${src.data.enabled == 'yes'}"],
        payload: cm('x') as never,
      },
    ]);
    const pendingField = evaluate(g, { observed: observedFromObjects([cm('src')]) });
    assert.equal(node(pendingField, 'x').state, 'pending');
    assert.equal(node(pendingField, 'x').pending?.reference, 'src.data.enabled');
    const off = evaluate(g, { observed: observedFromObjects([cm('src', { enabled: 'no' })]) });
    assert.equal(node(off, 'x').state, 'excluded');
    const on = evaluate(g, { observed: observedFromObjects([cm('src', { enabled: 'yes' })]) });
    assert.equal(node(on, 'x').state, 'waiting');
  });

  it('a false includeWhen excludes the node even while its payload still waits for data', () => {
    const g = buildGraph([
      { id: 'flag', kind: 'def', payload: { on: false } },
      { id: 'src', kind: 'ref', payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'src' } } },
      {
        id: 'x',
        kind: 'template',
        includeWhen: ['${flag.on}'],
        payload: { ...cm('x'), data: { v: '${src.data.v}' } },
      },
    ]);
    const r = evaluate(g, { observed: none });
    assert.equal(node(r, 'src').state, 'pending');
    assert.equal(node(r, 'x').state, 'excluded');
    assert.equal(node(r, 'x').excludedBy, 'x');
  });

  it('a non-bool includeWhen is a hard error naming node and expression', () => {
    const g = buildGraph([
      { id: 'x', kind: 'template', includeWhen: ["${'yes'}"], payload: cm('x') as never },
    ]);
    const r = evaluate(g, { observed: none });
    assert.equal(node(r, 'x').state, 'error');
    assert.equal(r.errors[0]?.node, 'x');
    assert.match(r.errors[0]!.message, /includeWhen\[0\] must return bool/);
    assert.equal(r.errors[0]?.expression, "${'yes'}");
  });
});

describe('forEach collections', () => {
  const product = buildGraph([
    { id: 'cfg', kind: 'def', payload: { regions: ['us-east', 'us-west'], tiers: ['web', 'api'] } },
    {
      id: 'apps',
      kind: 'template',
      forEach: [{ region: '${cfg.regions}' }, { tier: '${cfg.tiers}' }],
      payload: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: '${region}-${tier}' },
        data: { r: '${region}' },
      },
    },
    { id: 'names', kind: 'def', payload: { all: '${apps.map(a, a.metadata.name)}' } },
  ]);

  it('renders the region × tier product, outermost first', () => {
    const r = evaluate(product, { observed: none });
    const apps = node(r, 'apps');
    assert.equal(apps.collection, true);
    assert.deepEqual(
      apps.objects.map((o) => (o.value as { metadata: { name: string } }).metadata.name),
      ['us-east-web', 'us-east-api', 'us-west-web', 'us-west-api'],
    );
    assert.deepEqual(
      apps.objects.map((o) => o.index),
      [0, 1, 2, 3],
    );
    assert.equal(apps.state, 'waiting');
  });

  it('publishes observed items in desired order (ordered intersection), whatever the observed order', () => {
    const observed = observedFromObjects([
      cm('us-west-api'),
      cm('us-east-web'),
      cm('unrelated'),
      cm('us-west-web'),
    ]);
    const r = evaluate(product, { observed });
    assert.deepEqual(node(r, 'names').objects[0]!.value, {
      all: ['us-east-web', 'us-west-web', 'us-west-api'],
    });
    const items = node(r, 'apps').items;
    assert.deepEqual(
      items.map((i) => i.observed),
      [true, false, true, true],
    );
    assert.match(node(r, 'apps').reason!, /item 1: configmap\/us-east-api -n default is not observed yet/);
  });

  it('an empty collection is ready and publishes an empty list', () => {
    const g = buildGraph([
      { id: 'src', kind: 'def', payload: { items: [] } },
      {
        id: 'each',
        kind: 'template',
        forEach: [{ x: '${src.items}' }],
        readyWhen: ['${each.data.ok == "true"}'],
        payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${x}' } },
      },
      { id: 'count', kind: 'def', payload: { n: '${size(each)}' } },
    ]);
    const r = evaluate(g, { observed: none });
    assert.equal(node(r, 'each').state, 'ready');
    assert.equal(node(r, 'each').ready, true);
    assert.deepEqual(node(r, 'each').objects, []);
    assert.deepEqual(node(r, 'count').objects[0]!.value, { n: 0 });
    assert.equal(r.ready, true);
  });

  it('evaluates readyWhen per item with each', () => {
    const g = buildGraph([
      {
        id: 'cms',
        kind: 'template',
        forEach: [{ n: "${['a', 'b']}" }],
        readyWhen: ["${each.data.ok == 'true'}"],
        payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${n}' } },
      },
    ]);
    const half = evaluate(g, {
      observed: observedFromObjects([cm('a', { ok: 'true' }), cm('b', { ok: 'false' })]),
    });
    assert.deepEqual(
      node(half, 'cms').items.map((i) => i.ready),
      [true, false],
    );
    assert.equal(node(half, 'cms').state, 'waiting');
    // A readyWhen on a missing field is not ready, not an error.
    const missing = evaluate(g, { observed: observedFromObjects([cm('a', { ok: 'true' }), cm('b')]) });
    assert.equal(node(missing, 'cms').state, 'waiting');
    const all = evaluate(g, {
      observed: observedFromObjects([cm('a', { ok: 'true' }), cm('b', { ok: 'true' })]),
    });
    assert.equal(node(all, 'cms').state, 'ready');
  });

  it('more than 1,000 items is a hard error naming the node and the count', () => {
    const g = buildGraph([
      { id: 'src', kind: 'def', payload: { a: '${lists.range(40)}', b: '${lists.range(26)}' } },
      {
        id: 'many',
        kind: 'def',
        forEach: [{ i: '${src.a}' }, { j: '${src.b}' }],
        payload: { v: '${i * j}' },
      },
    ]);
    const r = evaluate(g, { observed: none });
    assert.equal(node(r, 'many').state, 'error');
    assert.match(node(r, 'many').reason!, /collection "many" has 1040 items, more than the limit of 1000/);
    assert.equal(r.errors[0]?.node, 'many');
    const small = evaluate(g, { observed: none, maxCollectionSize: 2000 });
    assert.equal(node(small, 'many').objects.length, 1040);
  });

  it('a forEach that is not a list is a hard error', () => {
    const g = buildGraph([{ id: 'x', kind: 'def', forEach: [{ i: "${'abc'}" }], payload: { v: '${i}' } }]);
    const r = evaluate(g, { observed: none });
    assert.equal(node(r, 'x').state, 'error');
    assert.match(node(r, 'x').reason!, /must return a list/);
  });

  it('a def with forEach publishes a list', () => {
    const g = buildGraph([
      { id: 'd', kind: 'def', forEach: [{ n: '${[1, 2, 3]}' }], payload: { double: '${n * 2}' } },
      { id: 'sum', kind: 'def', payload: { total: '${d.map(x, x.double)[0] + d[2].double}' } },
    ]);
    const r = evaluate(g, { observed: none });
    assert.deepEqual(
      node(r, 'd').objects.map((o) => o.value),
      [{ double: 2 }, { double: 4 }, { double: 6 }],
    );
    const sum = node(r, 'sum');
    if (sum.state === 'error') assert.fail(`sum failed: ${sum.reason}`);
    assert.deepEqual(sum.objects[0]!.value, { total: 8 });
  });
});

describe('data pending and errors', () => {
  const g = buildGraph([
    {
      id: 'config',
      kind: 'ref',
      payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config' } },
    },
    {
      id: 'app',
      kind: 'template',
      payload: { ...cm('app'), data: { level: '${config.data.LOG_LEVEL}' } },
    },
    { id: 'other', kind: 'template', payload: cm('other') as never },
  ]);

  it('a missing ref target is pending; dependents wait; independent nodes proceed; then it proceeds', () => {
    const r = evaluate(g, { observed: none });
    assert.equal(node(r, 'config').state, 'pending');
    assert.match(node(r, 'config').reason!, /ref target configmap\/app-config -n default does not exist yet/);
    assert.equal(node(r, 'app').state, 'pending');
    assert.equal(node(r, 'app').pending?.reference, 'config');
    assert.equal(node(r, 'other').state, 'waiting');
    assert.equal(r.complete, false);
    assert.equal(r.firstSoft?.node, 'config');

    const later = evaluate(g, { observed: observedFromObjects([cm('app-config', { LOG_LEVEL: 'debug' })]) });
    assert.equal(node(later, 'config').state, 'ready');
    assert.equal(node(later, 'app').state, 'waiting');
    assert.deepEqual((node(later, 'app').objects[0]!.value as { data: unknown }).data, { level: 'debug' });
  });

  it('a missing field is data pending naming the reference and the expression', () => {
    const r = evaluate(g, { observed: observedFromObjects([cm('app-config', {})]) });
    const app = node(r, 'app');
    assert.equal(app.state, 'pending');
    assert.equal(app.pending?.reference, 'config.data.LOG_LEVEL');
    assert.equal(app.pending?.expression, '${config.data.LOG_LEVEL}');
    assert.equal(app.pending?.field, 'data.level');
    assert.equal(app.pending?.node, 'app');
  });

  it('a bad conversion is a hard error naming node and expression', () => {
    const bad = buildGraph([{ id: 'x', kind: 'def', payload: { n: "${int('abc')}" } }]);
    const r = evaluate(bad, { observed: none });
    assert.equal(node(r, 'x').state, 'error');
    assert.equal(r.errors.length, 1);
    assert.equal(r.errors[0]!.node, 'x');
    assert.equal(r.errors[0]!.expression, "${int('abc')}");
    assert.equal(r.complete, false);
  });

  it('optional access with orValue renders a default instead of waiting', () => {
    const opt = buildGraph([
      {
        id: 'config',
        kind: 'ref',
        payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config' } },
      },
      {
        id: 'app',
        kind: 'template',
        payload: {
          ...cm('app'),
          data: { level: "${config.data.?LOG_LEVEL.orValue('info')}", raw: '${config.data.?MISSING}' },
        },
      },
    ]);
    const r = evaluate(opt, { observed: observedFromObjects([cm('app-config', {})]) });
    assert.equal(node(r, 'app').state, 'waiting');
    assert.deepEqual((node(r, 'app').objects[0]!.value as { data: unknown }).data, {
      level: 'info',
      raw: null,
    });
    const set = evaluate(opt, { observed: observedFromObjects([cm('app-config', { LOG_LEVEL: 'warn' })]) });
    assert.deepEqual((node(set, 'app').objects[0]!.value as { data: { level: string } }).data.level, 'warn');
    // The optional reference is still a dependency: without the object the node waits.
    assert.equal(node(evaluate(opt, { observed: none }), 'app').state, 'pending');
  });

  it('an index beyond the observed list is data pending, not an error', () => {
    const g = buildGraph([
      { id: 'src', kind: 'ref', payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'src' } } },
      { id: 'x', kind: 'def', payload: { third: "${src.data.list.split(',')[2]}" } },
    ]);
    const short = evaluate(g, { observed: observedFromObjects([cm('src', { list: 'a,b' })]) });
    assert.equal(node(short, 'x').state, 'pending');
    const long = evaluate(g, { observed: observedFromObjects([cm('src', { list: 'a,b,c' })]) });
    assert.deepEqual(node(long, 'x').objects[0]!.value, { third: 'c' });
  });

  it('a selector computed from data must be a LabelSelector: a typo fails the ref', () => {
    const g = (selector: Record<string, unknown>) =>
      buildGraph([
        { id: 'sel', kind: 'def', payload: { value: selector as never } },
        {
          id: 'cms',
          kind: 'ref',
          payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { selector: '${sel.value}' } },
        },
      ]);
    const observed = observedFromObjects([
      { ...cm('a'), metadata: { name: 'a', namespace: 'default', labels: { app: 'x' } } },
      cm('b'),
    ]);
    const good = evaluate(g({ matchLabels: { app: 'x' } }), { observed });
    assert.equal(node(good, 'cms').state, 'ready');
    const typo = evaluate(g({ matchLabel: { app: 'x' } }), { observed });
    assert.equal(node(typo, 'cms').state, 'error');
    assert.match(node(typo, 'cms').reason!, /invalid selector: selector has unknown field "matchLabel"/);
  });

  it('a hostile expression fails on the deterministic cost budget, not on the clock', () => {
    const g = buildGraph([
      {
        id: 'x',
        kind: 'def',
        payload: { n: '${lists.range(1000).map(i, lists.range(1000).map(j, i * j)).size()}' },
      },
    ]);
    const r = evaluate(g, { observed: none });
    assert.equal(node(r, 'x').state, 'error');
    assert.match(node(r, 'x').reason!, /cost limit exceeded/);
  });

  it('a string template part that is not a string is a hard error', () => {
    const bad = buildGraph([{ id: 'x', kind: 'def', payload: { n: 'n-${1}' } }]);
    const r = evaluate(bad, { observed: none });
    assert.equal(node(r, 'x').state, 'error');
    assert.match(node(r, 'x').reason!, /must return a string/);
  });
});

describe('gating', () => {
  const nodes = [
    {
      id: 'db',
      kind: 'template' as const,
      readyWhen: ["${db.data.ready == 'true'}"],
      payload: cm('db') as never,
    },
    { id: 'app', kind: 'template' as const, payload: { ...cm('app'), data: { db: '${db.metadata.name}' } } },
  ];
  const observed = observedFromObjects([cm('db', { ready: 'false' })]);

  it('a Graph is scope-gated: a dependent runs once the data exists, not-ready or not', () => {
    const r = evaluate(buildGraph(nodes), { observed });
    assert.equal(node(r, 'db').state, 'waiting');
    assert.equal(node(r, 'app').state, 'waiting');
    assert.equal(node(r, 'app').objects.length, 1);
  });

  it('an RGD is ready-gated: a dependent of a not-ready node is not rendered', () => {
    const r = evaluate(buildGraph(nodes, { gating: 'ready', status: {} }), {
      observed,
      instance: {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'Test',
        metadata: { name: 'i', namespace: 'default' },
        spec: {},
      },
    });
    assert.equal(node(r, 'db').state, 'waiting');
    assert.equal(node(r, 'app').state, 'pending');
    assert.match(node(r, 'app').reason!, /waiting for dependency "db" to become ready/);
    const ready = evaluate(buildGraph(nodes, { gating: 'ready', status: {} }), {
      observed: observedFromObjects([cm('db', { ready: 'true' })]),
      instance: {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'Test',
        metadata: { name: 'i', namespace: 'default' },
        spec: {},
      },
    });
    assert.equal(node(ready, 'app').state, 'waiting');
  });
});

describe('RGD instance and status projection', () => {
  const rgd = buildGraph(
    [
      {
        id: 'deployment',
        kind: 'template',
        payload: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: '${schema.metadata.name}' },
          spec: { replicas: '${schema.spec.replicas}' },
        },
      },
    ],
    {
      gating: 'ready',
      status: {
        available: '${deployment.status.availableReplicas}',
        name: '${deployment.metadata.name}',
        'conn.host': "${schema.metadata.name + '.svc'}",
      },
    },
  );
  const instance: KubeObject = {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'Test',
    metadata: { name: 'web', namespace: 'team-a' },
    spec: { replicas: 3 },
  };
  const deployment = (status?: Record<string, unknown>): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'team-a' },
    spec: { replicas: 3 },
    ...(status ? { status } : {}),
  });

  it('renders from the instance into its namespace, and projects only the status fields whose inputs exist', () => {
    const first = evaluate(rgd, { instance, observed: none });
    assert.deepEqual(node(first, 'deployment').objects[0]!.value, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'team-a' },
      spec: { replicas: 3 },
    });
    assert.deepEqual(first.status, { conn: { host: 'web.svc' } });

    const applied = evaluate(rgd, { instance, observed: observedFromObjects([deployment()]) });
    assert.deepEqual(applied.status, { name: 'web', conn: { host: 'web.svc' } });

    const running = evaluate(rgd, {
      instance,
      observed: observedFromObjects([deployment({ availableReplicas: 3 })]),
    });
    assert.deepEqual(running.status, { available: 3, name: 'web', conn: { host: 'web.svc' } });
  });

  it('leaves out a status field whose expression yields an empty optional (kro: the field is absent)', () => {
    const withOptionals = buildGraph(
      [
        {
          id: 'deployment',
          kind: 'template',
          payload: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'web' },
            spec: { replicas: 3 },
          },
        },
      ],
      {
        gating: 'ready',
        status: {
          available: '${deployment.status.?conditions[0].status}',
          unavailable: '${deployment.status.?conditions[10]}',
        },
      },
    );
    const r = evaluate(withOptionals, {
      instance,
      observed: observedFromObjects([deployment({ conditions: [{ type: 'Available', status: 'True' }] })]),
    });
    assert.deepEqual(r.status, { available: 'True' });
  });

  it('a cluster-scoped instance whose namespaced child renders an empty namespace: an error naming metadata.namespace', () => {
    const g = buildGraph(
      [
        {
          id: 'cm',
          kind: 'template',
          payload: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${schema.spec.name}', namespace: '${schema.spec.targetNamespace}' },
          },
        },
      ],
      { gating: 'ready', status: {} },
    );
    if (g.rgd) g.rgd.scope = 'Cluster';
    const inst: KubeObject = {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'Test',
      metadata: { name: 'c' },
      spec: { name: 'x', targetNamespace: '' },
    };
    const r = evaluate(g, { instance: inst, observed: none });
    assert.equal(node(r, 'cm').state, 'error');
    assert.match(node(r, 'cm').error?.message ?? '', /metadata\.namespace/);
    const ok = evaluate(g, {
      instance: { ...inst, spec: { name: 'x', targetNamespace: 'team-a' } },
      observed: none,
    });
    assert.equal(node(ok, 'cm').state, 'waiting');
  });

  it('without an instance, nodes reading schema are pending', () => {
    const r = evaluate(rgd, { observed: none });
    assert.equal(node(r, 'deployment').state, 'pending');
    assert.equal(node(r, 'deployment').pending?.reference, 'schema');
  });
});

describe('patch nodes', () => {
  const g = buildGraph([
    {
      id: 'namespaces',
      kind: 'ref',
      scope: 'Cluster',
      payload: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { selector: { matchLabels: { team: 'a' } } },
      },
    },
    {
      id: 'mark',
      kind: 'patch',
      forEach: [{ ns: '${namespaces.map(n, n.metadata.name)}' }],
      payload: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', namespace: '${ns}' },
        data: { patched: 'true' },
      },
    },
  ]);
  const ns = (name: string, team: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { team } },
  });

  it('renders one target per item with its identity, on the main endpoint, ready once targets exist', () => {
    const observed = observedFromObjects([
      ns('a1', 'a'),
      ns('b1', 'b'),
      ns('a2', 'a'),
      cm('settings', {}, 'a1'),
    ]);
    const r = evaluate(g, { observed });
    const mark = node(r, 'mark');
    assert.equal(mark.patchEndpoint, 'main');
    assert.deepEqual(
      mark.items.map((i) => [i.identity?.namespace, i.identity?.name, i.observed]),
      [
        ['a1', 'settings', true],
        ['a2', 'settings', false],
      ],
    );
    assert.equal(mark.state, 'waiting');
    assert.match(mark.reason!, /patch target configmap\/settings -n a2 does not exist yet/);
    const all = evaluate(g, {
      observed: observedFromObjects([
        ns('a1', 'a'),
        ns('a2', 'a'),
        cm('settings', {}, 'a1'),
        cm('settings', {}, 'a2'),
      ]),
    });
    assert.equal(node(all, 'mark').state, 'ready');
  });

  it('chooses the status endpoint for a top-level status key', () => {
    const s = buildGraph([
      {
        id: 'st',
        kind: 'patch',
        payload: {
          apiVersion: 'example.com/v1',
          kind: 'WebApp',
          metadata: { name: 'w' },
          status: { ready: '${true}' },
        },
      },
    ]);
    const r = evaluate(s, { observed: none });
    assert.equal(node(r, 'st').patchEndpoint, 'status');
    assert.deepEqual((node(r, 'st').objects[0]!.value as { status: unknown }).status, { ready: true });
  });

  it('publishes nothing', () => {
    const r = evaluate(g, { observed: observedFromObjects([ns('a1', 'a')]) });
    assert.equal(
      r.nodes.some((n) => n.id === 'mark' && n.objects.length === 1),
      true,
    );
  });
});

describe('nested graphs, defs and dynamic types', () => {
  it('a subgraph captures a parent def and the parent reads its children through the graph id', () => {
    const g = buildGraph([
      { id: 'shared', kind: 'def', payload: { app: 'shop' } },
      {
        id: 'backend',
        kind: 'graph',
        children: [
          { id: 'svc', kind: 'template', payload: { ...cm('${shared.app}-svc'), data: {} } },
          { id: 'cfg', kind: 'def', payload: { name: '${svc.metadata.name}' } },
        ],
      },
      {
        id: 'ingress',
        kind: 'template',
        payload: { ...cm('ing'), data: { to: '${backend.svc.metadata.name}' } },
      },
    ]);
    const pending = evaluate(g, { observed: none });
    assert.deepEqual(
      pending.nodes.map((n) => [n.path, n.state]),
      [
        ['shared', 'ready'],
        ['backend', 'pending'],
        ['backend.svc', 'waiting'],
        ['backend.cfg', 'pending'],
        ['ingress', 'pending'],
      ],
    );
    assert.equal(node(pending, 'ingress').pending?.reference, 'backend');
    const r = evaluate(g, { observed: observedFromObjects([cm('shop-svc'), cm('ing', { to: 'shop-svc' })]) });
    assert.deepEqual(node(r, 'backend.cfg').objects[0]!.value, { name: 'shop-svc' });
    assert.deepEqual((node(r, 'ingress').objects[0]!.value as { data: unknown }).data, { to: 'shop-svc' });
    assert.equal(node(r, 'backend').state, 'ready');
    assert.equal(r.ready, true);
  });

  it('the children of an excluded or pending graph node are reported in the same state', () => {
    const g = (on: boolean) =>
      buildGraph([
        { id: 'flag', kind: 'def', payload: { on } },
        {
          id: 'gate',
          kind: 'ref',
          includeWhen: ['${flag.on}'],
          payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gate' } },
        },
        {
          id: 'sub',
          kind: 'graph',
          children: [
            {
              id: 'inner',
              kind: 'template',
              payload: { ...cm('inner'), data: { g: '${gate.metadata.name}' } },
            },
          ],
        },
      ]);
    const off = evaluate(g(false), { observed: none });
    assert.deepEqual(
      off.nodes.map((n) => [n.path, n.state]),
      [
        ['flag', 'ready'],
        ['gate', 'excluded'],
        ['sub', 'excluded'],
        ['sub.inner', 'excluded'],
      ],
    );
    const on = evaluate(g(true), { observed: none });
    assert.equal(node(on, 'sub').state, 'pending');
    assert.equal(node(on, 'sub.inner').state, 'pending');
    assert.match(node(on, 'sub.inner').reason!, /graph "sub" is pending/);
  });

  it('a dynamic type is held until the observed state serves it', () => {
    const g = buildGraph([
      {
        id: 'crd',
        kind: 'ref',
        scope: 'Cluster',
        payload: {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: 'widgets.example.com' },
        },
      },
      {
        id: 'widget',
        kind: 'template',
        payload: {
          apiVersion: '${crd.spec.group}/${crd.spec.versions[0].name}',
          kind: '${crd.spec.names.kind}',
          metadata: { name: 'w1' },
        },
      },
    ]);
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Widget' },
        scope: 'Cluster',
        versions: [{ name: 'v1', served: true }],
      },
    };
    // The CRD object is observed but the caller reports no served types (e.g. not Established).
    const notServed = {
      ...observedFromObjects([crd]),
      servedType: () => undefined,
    };
    const held = evaluate(g, { observed: notServed });
    assert.equal(node(held, 'widget').state, 'waiting');
    assert.equal(node(held, 'widget').held, true);
    assert.deepEqual(node(held, 'widget').objects, []);
    const served = evaluate(g, { observed: observedFromObjects([crd]) });
    assert.equal(node(served, 'widget').state, 'waiting');
    // Cluster-scoped (from the CRD): no namespace defaulted.
    assert.deepEqual(node(served, 'widget').objects[0]!.value, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
    });
  });

  it('two nodes rendering the same object is a hard error', () => {
    const g = buildGraph([
      { id: 'a', kind: 'template', payload: cm('same') as never },
      { id: 'b', kind: 'template', payload: cm('same') as never },
    ]);
    const r = evaluate(g, { observed: none });
    assert.equal(node(r, 'b').state, 'error');
    assert.match(node(r, 'b').reason!, /nodes "a" and "b" both render configmap\/same -n default/);
  });

  it('is pure: the same inputs give the same result', () => {
    const g = buildGraph([
      { id: 'd', kind: 'def', forEach: [{ n: '${[3, 1, 2]}' }], payload: { n: '${n}' } },
      { id: 't', kind: 'template', payload: { ...cm('t'), data: { n: '${string(d.size())}' } } },
    ]);
    const a = evaluate(g, { observed: none });
    const b = evaluate(g, { observed: none });
    assert.deepEqual(a, b);
  });
});

describe('omit()', () => {
  it('removes the containing map key and list element from the rendered object', () => {
    const g = buildGraph([
      { id: 'cfg', kind: 'def', payload: { debug: false } },
      {
        id: 'cm',
        kind: 'template',
        payload: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'x', labels: { keep: 'yes', debug: "${cfg.debug ? 'on' : omit()}" } },
          data: { list: 'unused' },
          extra: ['a', '${cfg.debug ? "b" : omit()}', 'c'],
        },
      },
    ]);
    const r = evaluate(g, { observed: none });
    const cmNode = node(r, 'cm');
    assert.equal(cmNode.state, 'waiting', cmNode.reason);
    const value = cmNode.objects[0]!.value as { metadata: { labels: unknown }; extra: unknown };
    assert.deepEqual(value.metadata.labels, { keep: 'yes' });
    assert.deepEqual(value.extra, ['a', 'c']);
  });
});

describe('values', () => {
  it('keeps integers exact beyond 2^53', () => {
    const g = buildGraph([
      { id: 'd', kind: 'def', payload: { big: '${9223372036854775807}', small: '${1 + 1}' } },
    ]);
    const r = evaluate(g, { observed: none });
    assert.deepEqual(node(r, 'd').objects[0]!.value, { big: 9223372036854775807n, small: 2 });
  });

  it('converts observed objects by schema when the host knows it (number stays double)', () => {
    const g = buildGraph([
      {
        id: 'w',
        kind: 'ref',
        payload: { apiVersion: 'example.com/v1', kind: 'Weight', metadata: { name: 'w' } },
      },
      { id: 'd', kind: 'def', payload: { v: '${w.spec.ratio + 0.5}' } },
    ]);
    const observed = observedFromObjects([
      {
        apiVersion: 'example.com/v1',
        kind: 'Weight',
        metadata: { name: 'w', namespace: 'default' },
        spec: { ratio: 2 },
      },
    ]);
    const schemaless = evaluate(g, { observed });
    assert.equal(
      node(schemaless, 'd').state,
      'error',
      'schemaless: 2 is an int, int + double has no overload',
    );
    const host = celHost({
      schemaFor: () => ({
        type: 'object',
        properties: { spec: { type: 'object', properties: { ratio: { type: 'number' } } } },
      }),
    });
    const typed = evaluate(g, { observed }, { host });
    assert.deepEqual(node(typed, 'd').objects[0]!.value, { v: 2.5 });
  });
});

describe('quoting and data', () => {
  it('a quoted inner expression is emitted as literal text for a stamped child Graph (design/graph.md §14.4)', () => {
    const g = buildGraph([
      {
        id: 'child',
        kind: 'template',
        payload: {
          apiVersion: 'kro.run/v1alpha1',
          kind: 'Graph',
          metadata: { name: 'child' },
          spec: {
            nodes: [{ id: 'copy', template: { metadata: { name: "${'${quota.metadata.name}'}-copy" } } }],
          },
        },
      },
    ]);
    const r = evaluate(g, { observed: none });
    const value = node(r, 'child').objects[0]!.value as { spec: { nodes: { template: unknown }[] } };
    assert.deepEqual(value.spec.nodes[0]!.template, { metadata: { name: '${quota.metadata.name}-copy' } });
  });

  it('literal ${…} text inside instance data is data, never evaluated (design/graph.md §6.3)', () => {
    const g = buildGraph(
      [{ id: 'cm', kind: 'template', payload: { ...cm('x'), data: { script: '${schema.spec.script}' } } }],
      { gating: 'ready', status: {} },
    );
    const instance: KubeObject = {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'Test',
      metadata: { name: 'i', namespace: 'default' },
      spec: { script: 'echo ${HOME}' },
    };
    const r = evaluate(g, { observed: none, instance });
    assert.deepEqual((node(r, 'cm').objects[0]!.value as { data: unknown }).data, { script: 'echo ${HOME}' });
  });
});
