// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * RGD instances on a real API server (design/rgd.md §20, design/graph.md §21–§23): convergence with the status projected,
 * defaults, the stamped labels, pruning on includeWhen and forEach, externalRef, a spec edit, suspension.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import { applySetId } from '../../../src/controller/rgd/names.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  cmData,
  conditionOf,
  eventually,
  getCm,
  getInstance,
  gone,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

describe('RGD instances', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;

  before(async () => {
    f = await rgdFixture('rgd-inst');
    ({ client, controller } = f);
  });
  after(() => stopRgdController(controller));

  it('converges to ACTIVE with defaults applied, children stamped and the status projected', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'app',
        {
          kind: 'App',
          spec: {
            name: 'string | required=true',
            tier: 'string | default="web"',
            replicas: 'integer | default=2',
          },
          status: {
            config: '${config.metadata.name}',
            tier: '${config.data.tier}',
            gate: '${gate.data.open}',
          },
        },
        [
          {
            id: 'config',
            template: cm('${schema.spec.name}-config', {
              tier: '${schema.spec.tier}',
              replicas: '${string(schema.spec.replicas)}',
            }),
          },
          {
            // Ready-gated: the gate waits until its readyWhen holds; `after` waits for the gate to be ready.
            // `data.open` is not in the template: an operator sets it (the controller does not own it).
            id: 'gate',
            template: cm('${config.metadata.name}-gate', { kind: 'gate' }),
            readyWhen: ['${gate.data.?open.orValue("") == "yes"}'],
          },
          { id: 'after', template: cm('${gate.metadata.name}-after', { x: 'y' }) },
        ],
      ),
    );
    await waitRgd(client, 'app', 'Ready', 'True');
    await applyInstance(client, instance(f, 'App', 'one', { name: 'one' }));
    const waiting = await waitState(client, f, 'App', 'one', 'IN_PROGRESS', (o) =>
      Boolean((o.status as { config?: string }).config),
    );
    // Progressive projection: what resolved is there, the rest is left out.
    const ws = waiting.status as Record<string, unknown>;
    assert.equal(ws.config, 'one-config');
    assert.equal(ws.tier, 'web', 'the default is applied');
    assert.equal(ws.gate, undefined, 'gate.data.open is not there yet: the field is left out');
    assert.equal(conditionOf(waiting, 'ResourcesReady')?.status, 'False');
    assert.equal(
      await getCm(client, f.ns, 'one-config-gate-after'),
      undefined,
      'ready-gated: after waits for the gate',
    );

    const config = await getCm(client, f.ns, 'one-config');
    assert.ok(config);
    assert.deepEqual(config.data, { tier: 'web', replicas: '2' });
    const inst = await getInstance(client, f, 'App', 'one');
    assert.ok(inst);
    const id = applySetId('one', f.ns, 'App', f.group);
    const labels = config.metadata.labels ?? {};
    assert.equal(labels['kro.run/owned'], 'true');
    assert.equal(labels['kro.run/instance-id'], inst.metadata.uid);
    assert.equal(labels['kro.run/instance-name'], 'one');
    assert.equal(labels['kro.run/instance-namespace'], f.ns);
    assert.equal(labels['kro.run/instance-group'], f.group);
    assert.equal(labels['kro.run/instance-version'], 'v1alpha1');
    assert.equal(labels['kro.run/instance-kind'], 'App');
    assert.equal(labels['app.kubernetes.io/managed-by'], 'kro');
    assert.equal(labels['kro.run/node-id'], 'config');
    assert.equal(labels['applyset.kubernetes.io/part-of'], id);
    assert.ok(labels['kro.run/kro-version']);
    assert.ok(!Object.keys(labels).some((k) => k.startsWith('kro.run/resource-graph-definition')));
    assert.equal(config.metadata.annotations?.['internal.kro.run/apply-order'], '1');
    assert.equal(config.metadata.annotations?.['internal.kro.run/node-path'], 'config');
    assert.ok((config.metadata.managedFields ?? []).some((m) => m.manager === 'kro.run/applyset'));
    // The instance is the ApplySet parent (design/graph.md §23.3).
    assert.equal(inst.metadata.labels?.['applyset.kubernetes.io/id'], id);
    assert.equal(inst.metadata.labels?.['kro.run/resource-graph-definition-name'], 'app');
    assert.equal(inst.metadata.annotations?.['applyset.kubernetes.io/contains-group-kinds'], 'ConfigMap');
    assert.ok(inst.metadata.finalizers?.includes('kro.run/finalizer'));

    // Drive the gate's readiness: the dependent is applied, the instance becomes ACTIVE.
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'one-config-gate', namespace: f.ns },
        data: { open: 'yes' },
      },
      { fieldManager: 'operator', force: true },
    );
    const active = await waitState(client, f, 'App', 'one', 'ACTIVE');
    assert.equal((active.status as Record<string, unknown>).gate, 'yes');
    for (const t of ['InstanceManaged', 'GraphResolved', 'ResourcesReady', 'Ready']) {
      const c = conditionOf(active, t);
      assert.equal(c?.status, 'True', t);
      assert.equal(c?.observedGeneration, active.metadata.generation, t);
    }
    // kro's reasons and messages, word for word; the root Ready carries no message, as in kro.
    const said = (t: string) => {
      const c = conditionOf(active, t) as { reason?: string; message?: string } | undefined;
      return [c?.reason, c?.message];
    };
    assert.deepEqual(said('InstanceManaged'), [
      'Managed',
      'instance is properly managed with finalizers and labels',
    ]);
    assert.deepEqual(said('GraphResolved'), ['Resolved', 'runtime graph created and all resources resolved']);
    assert.deepEqual(said('ResourcesReady'), ['AllResourcesReady', 'all resources are created and ready']);
    assert.deepEqual(said('Ready'), ['Ready', undefined]);
    assert.ok(await getCm(client, f.ns, 'one-config-gate-after'));
  });

  it('prunes a resource whose includeWhen turns false, and brings it back', async () => {
    await applyRgd(
      client,
      rgd(f, 'toggle', { kind: 'Toggle', spec: { extra: 'boolean | default=true' } }, [
        { id: 'main', template: cm('${schema.metadata.name}-main') },
        { id: 'extra', includeWhen: ['${schema.spec.extra}'], template: cm('${schema.metadata.name}-extra') },
      ]),
    );
    await waitRgd(client, 'toggle', 'Ready', 'True');
    await applyInstance(client, instance(f, 'Toggle', 'tg', {}));
    await waitState(client, f, 'Toggle', 'tg', 'ACTIVE');
    assert.ok(await getCm(client, f.ns, 'tg-extra'));
    await applyInstance(client, instance(f, 'Toggle', 'tg', { extra: false }));
    await gone(client, f.ns, 'tg-extra');
    await waitState(client, f, 'Toggle', 'tg', 'ACTIVE');
    assert.ok(await getCm(client, f.ns, 'tg-main'));
    await applyInstance(client, instance(f, 'Toggle', 'tg', { extra: true }));
    await eventually('extra back', async () => ((await getCm(client, f.ns, 'tg-extra')) ? true : undefined));
  });

  it('prunes the items a forEach no longer yields', async () => {
    await applyRgd(
      client,
      rgd(f, 'fan', { kind: 'Fan', spec: { regions: '[]string' } }, [
        {
          id: 'regional',
          forEach: [{ region: '${schema.spec.regions}' }],
          template: cm('${schema.metadata.name}-${region}', { region: '${region}' }),
        },
      ]),
    );
    await waitRgd(client, 'fan', 'Ready', 'True');
    await applyInstance(client, instance(f, 'Fan', 'fn', { regions: ['a', 'b', 'c'] }));
    await waitState(client, f, 'Fan', 'fn', 'ACTIVE');
    const c = await getCm(client, f.ns, 'fn-c');
    assert.equal(c?.metadata.labels?.['kro.run/collection-index'], '2');
    assert.equal(c?.metadata.labels?.['kro.run/collection-size'], '3');
    await applyInstance(client, instance(f, 'Fan', 'fn', { regions: ['a'] }));
    await gone(client, f.ns, 'fn-b');
    await gone(client, f.ns, 'fn-c');
    await waitState(client, f, 'Fan', 'fn', 'ACTIVE');
    assert.ok(await getCm(client, f.ns, 'fn-a'));
  });

  it('waits for an externalRef that appears later, reads it, and never writes it', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'reader',
        { kind: 'Reader', spec: { source: 'string' }, status: { value: '${src.data.value}' } },
        [
          {
            id: 'src',
            externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${schema.spec.source}' } },
          },
          { id: 'copy', template: cm('${schema.metadata.name}-copy', { value: '${src.data.value}' }) },
        ],
      ),
    );
    await waitRgd(client, 'reader', 'Ready', 'True');
    await applyInstance(client, instance(f, 'Reader', 'rd', { source: 'later-source' }));
    const pending = await waitState(client, f, 'Reader', 'rd', 'IN_PROGRESS');
    assert.match(conditionOf(pending, 'ResourcesReady')?.message ?? '', /src/);
    assert.equal(await getCm(client, f.ns, 'rd-copy'), undefined);
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'later-source', namespace: f.ns },
      data: { value: 'v1' },
    });
    const active = await waitState(client, f, 'Reader', 'rd', 'ACTIVE');
    assert.equal((active.status as { value?: string }).value, 'v1');
    assert.equal((await cmData(client, f.ns, 'rd-copy'))?.value, 'v1');
    // Watched: a change of the referenced object flows through.
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'later-source', namespace: f.ns },
        data: { value: 'v2' },
      },
      { fieldManager: 'test', force: true },
    );
    await eventually('copy follows', async () =>
      (await cmData(client, f.ns, 'rd-copy'))?.value === 'v2' ? true : undefined,
    );
    const src = await getCm(client, f.ns, 'later-source');
    assert.ok(
      !(src?.metadata.managedFields ?? []).some((m) => m.manager?.startsWith('kro.run')),
      'never written',
    );
    assert.equal(src?.metadata.labels?.['applyset.kubernetes.io/part-of'], undefined);
  });

  it('a spec edit of the RGD restarts serving on the new graph', async () => {
    const res = (data: Record<string, string>) => [
      { id: 'c', template: cm('${schema.metadata.name}-c', data) },
    ];
    await applyRgd(
      client,
      rgd(f, 'edit', { kind: 'Edit', spec: { n: 'string | default="x"' } }, res({ v: 'one' })),
    );
    await waitRgd(client, 'edit', 'Ready', 'True');
    await applyInstance(client, instance(f, 'Edit', 'ed', {}));
    await waitState(client, f, 'Edit', 'ed', 'ACTIVE');
    assert.equal((await cmData(client, f.ns, 'ed-c'))?.v, 'one');
    await applyRgd(
      client,
      rgd(
        f,
        'edit',
        { kind: 'Edit', spec: { n: 'string | default="x"' } },
        res({ v: 'two', n: '${schema.spec.n}' }),
      ),
    );
    await eventually('served on the new graph', async () => {
      const d = await cmData(client, f.ns, 'ed-c');
      return d?.v === 'two' && d.n === 'x' ? true : undefined;
    });
    await waitRgd(client, 'edit', 'Ready', 'True');
  });

  it('leaves a suspended instance alone until the annotation goes', async () => {
    await applyRgd(
      client,
      rgd(f, 'susp', { kind: 'Susp', spec: { v: 'string' } }, [
        { id: 'c', template: cm('${schema.metadata.name}-c', { v: '${schema.spec.v}' }) },
      ]),
    );
    await waitRgd(client, 'susp', 'Ready', 'True');
    await applyInstance(client, instance(f, 'Susp', 'sp', { v: 'a' }));
    await waitState(client, f, 'Susp', 'sp', 'ACTIVE');
    await applyInstance(
      client,
      instance(f, 'Susp', 'sp', { v: 'b' }, { annotations: { 'kro.run/reconcile': 'suspended' } }),
    );
    // As kro says it: ResourcesReady and Ready False, reason ReconciliationSuspended, state IN_PROGRESS.
    const suspended = await eventually('the instance says it is suspended', async () => {
      const o = await getInstance(client, f, 'Susp', 'sp');
      return conditionOf(o, 'Ready')?.reason === 'ReconciliationSuspended' ? o : undefined;
    });
    for (const type of ['ResourcesReady', 'Ready']) {
      const c = conditionOf(suspended, type) as { status?: string; message?: string } | undefined;
      assert.equal(c?.status, 'False', type);
      assert.equal(c?.message, 'reconciliation suspended via kro.run/reconcile annotation', type);
    }
    assert.equal((suspended?.status as { state?: string } | undefined)?.state, 'IN_PROGRESS');
    await controller.idle();
    assert.equal((await cmData(client, f.ns, 'sp-c'))?.v, 'a', 'no change while suspended');
    // kro 0.9.0's value, in any letter case, suspends too.
    await applyInstance(
      client,
      instance(f, 'Susp', 'sp', { v: 'c' }, { annotations: { 'kro.run/reconcile': 'Disabled' } }),
    );
    await new Promise((r) => setTimeout(r, 1500));
    await controller.idle();
    assert.equal((await cmData(client, f.ns, 'sp-c'))?.v, 'a', 'no change while disabled');
    await applyInstance(
      client,
      instance(f, 'Susp', 'sp', { v: 'b' }, { annotations: { 'kro.run/reconcile': 'active' } }),
    );
    await eventually('resumed', async () =>
      (await cmData(client, f.ns, 'sp-c'))?.v === 'b' ? true : undefined,
    );
  });
});
