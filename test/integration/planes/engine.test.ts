// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The instance pass across planes on real control planes (management, host, one consumer), design/planes.md §6,
 * design/planes.md §7, §12, §14.1: pending cross-plane data and its resolution, pending does not stop independent nodes,
 * a genuine CEL error is hard and still leaves a liveness record (design/planes.md §18.2, §18.3), the stamp is runtime-only,
 * namespaces in the naming tuple (design/planes.md §18.1), per-plane keep sets, includeWhen flips and forEach shrinks
 * prune on their plane, foreign objects are never pruned, conditions survive projection, owner
 * references only where valid, and the registrar's InvalidTarget, ExportConflict (design/planes.md §18.7) and
 * BuildFailed for a missing explicit namespace.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { livenessRecordName, qualifiedName } from '../../../src/controller/planes/naming.ts';
import { isApiError, type KubeObject } from '../../../src/kube/index.ts';
import {
  AV,
  apply,
  BP,
  blueprint,
  CONTROLLER_NS,
  cmT,
  cond,
  eventually,
  getObj,
  planesFixture,
} from './support.ts';

const DEMO = blueprint(
  'demo',
  'Demo',
  [
    {
      id: 'agent',
      target: 'provider',
      template: cmT('${schema.spec.name}-agent', { request: '${schema.spec.name}' }, 'default'),
    },
    {
      id: 'token',
      template: cmT('${schema.spec.name}-token', {
        token: '${agent.data.token}',
        ref: '${agent.metadata.name}',
      }),
    },
    {
      id: 'independent',
      template: cmT('${schema.spec.name}-independent', {
        cluster: '${schema.metadata.annotations["krop.opendefense.cloud/consumer-cluster"]}',
      }),
    },
    {
      id: 'gated',
      target: 'provider',
      includeWhen: ['${schema.spec.gate}'],
      template: cmT('${schema.spec.name}-gated', { a: 'b' }, 'default'),
    },
    {
      id: 'copies',
      target: 'host',
      forEach: [{ entry: '${schema.spec.names}' }],
      template: cmT('${schema.spec.name}-${entry}', { entry: '${entry}' }, 'default'),
    },
    { id: 'twin', target: 'host', template: cmT('${schema.spec.name}-agent', { twin: 'host' }, 'default') },
    {
      id: 'elsewhere',
      template: cmT('${schema.spec.name}-${schema.metadata.namespace}-elsewhere', { a: 'b' }, 'elsewhere'),
    },
  ],
  {
    spec: { name: 'string', gate: 'boolean | default=true', names: '[]string' },
    status: { agentToken: '${token.data.token}' },
  },
);

const BROKEN = blueprint(
  'broken',
  'Broken',
  [{ id: 'bad', template: cmT('${schema.spec.name}-bad', { n: '${string(int(schema.spec.value))}' }) }],
  { spec: { name: 'string', value: 'string | default="abc"' } },
);

function demo(
  namespace: string,
  spec: Record<string, unknown>,
  annotations?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: AV,
    kind: 'Demo',
    metadata: { name: 'demo', namespace, ...(annotations ? { annotations } : {}) },
    spec: { name: 'demo', ...spec },
  };
}

describe('planes: the instance pass across management, host and a consumer', () => {
  const cget = (name: string, namespace = 'ns-a') =>
    getObj(p.consumer.admin, 'v1', 'ConfigMap', name, namespace);
  const pget = (name: string) => getObj(p.management.admin, 'v1', 'ConfigMap', name, 'default');
  const hget = (name: string) => getObj(p.host.admin, 'v1', 'ConfigMap', name, 'default');
  const inst = (namespace = 'ns-a', kind = 'Demo', name = 'demo') =>
    getObj(p.consumer.admin, AV, kind, name, namespace);

  const p = planesFixture({
    namespaces: ['ns-a', 'ns-b', 'elsewhere'],
    blueprints: [DEMO, BROKEN],
    grants: ['demo', 'broken'],
    finish: () => apply(p.consumer.admin, demo('ns-a', { names: ['x', 'y', 'z'] })),
  });

  it('pends on cross-plane data without stopping independent nodes', async () => {
    const agentName = qualifiedName(p.clusterId, 'ns-a', 'demo', 'demo-agent', 'ConfigMap');
    const i = await eventually('Progressing with the provider child applied', async () => {
      const o = await inst();
      return (await pget(agentName)) &&
        (await cget('demo-independent')) &&
        cond(o, 'Ready')?.reason === 'Progressing'
        ? o
        : undefined;
    });
    assert.equal(cond(i, 'Ready')?.status, 'False');
    assert.equal(cond(i, 'Progressing')?.status, 'True');
    assert.equal((i.status as { state?: string }).state, 'IN_PROGRESS');
    assert.equal(await cget('demo-token'), undefined);
    // Independent host nodes ran in the same passes.
    assert.ok(await hget('demo-x'));
    // The liveness record already exists, with the provider and host GVKs and a fresh lastReconciled.
    const rec = await p.management.admin.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: CONTROLLER_NS,
      name: livenessRecordName(p.clusterId, i.metadata.uid ?? ''),
    });
    const data = rec.data as Record<string, string>;
    assert.equal(data.providerChildGVKs, '/v1/ConfigMap');
    assert.equal(data.hostChildGVKs, '/v1/ConfigMap');
    assert.ok(Date.now() - Date.parse(data.lastReconciled ?? '') < 60_000);
  });

  it('resolves once the provider status appears; renamed children resolve in CEL', async () => {
    const agentName = qualifiedName(p.clusterId, 'ns-a', 'demo', 'demo-agent', 'ConfigMap');
    // Another controller fulfils the request on the provider plane.
    await p.management.admin.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: agentName, namespace: 'default' },
        data: { token: 'tok-42' },
      },
      { fieldManager: 'agent-controller' },
    );
    const i = await eventually(
      'Ready',
      async () => {
        const o = await inst();
        return cond(o, 'Ready')?.status === 'True' ? o : undefined;
      },
      30_000,
    );
    const token = await cget('demo-token');
    assert.deepEqual(token?.data, { token: 'tok-42', ref: agentName });
    assert.equal((i.status as { agentToken?: string }).agentToken, 'tok-42');
    assert.equal(cond(i, 'Progressing')?.reason, 'Reconciled');
  });

  it('keeps conditions stable across ready passes and reports observedGeneration', async () => {
    const first = cond(await inst(), 'Ready');
    await new Promise((r) => setTimeout(r, 2_500)); // two heartbeats
    const o = await inst();
    const again = cond(o, 'Ready');
    assert.equal(again?.status, 'True');
    assert.equal(again?.lastTransitionTime, first?.lastTransitionTime);
    assert.equal(again?.observedGeneration, o?.metadata.generation);
    assert.equal((o?.status as { agentToken?: string } | undefined)?.agentToken, 'tok-42');
  });

  it('stamps the cluster ID at runtime only', async () => {
    assert.equal(
      ((await cget('demo-independent'))?.data as Record<string, string> | undefined)?.cluster,
      p.clusterId,
    );
    assert.equal(
      (await inst())?.metadata.annotations?.['krop.opendefense.cloud/consumer-cluster'],
      undefined,
    );
    // A bogus consumer-set value is ignored by CEL and left untouched in storage.
    await apply(
      p.consumer.admin,
      demo('ns-b', { names: [] }, { 'krop.opendefense.cloud/consumer-cluster': 'bogus' }),
    );
    const o = await eventually('ns-b instance reconciled', async () => {
      const x = await inst('ns-b');
      return (await cget('demo-independent', 'ns-b')) ? x : undefined;
    });
    assert.equal(
      ((await cget('demo-independent', 'ns-b'))?.data as Record<string, string> | undefined)?.cluster,
      p.clusterId,
    );
    assert.equal(o?.metadata.annotations?.['krop.opendefense.cloud/consumer-cluster'], 'bogus');
  });

  it('same-named instances in two namespaces get distinct provider objects (design/planes.md §18.1)', async () => {
    const a = qualifiedName(p.clusterId, 'ns-a', 'demo', 'demo-agent', 'ConfigMap');
    const b = qualifiedName(p.clusterId, 'ns-b', 'demo', 'demo-agent', 'ConfigMap');
    assert.notEqual(a, b);
    const pb = await eventually('ns-b provider child', () => pget(b));
    const pa = await pget(a);
    const ia = await inst('ns-a');
    const ib = await inst('ns-b');
    assert.equal(pa?.metadata.labels?.['krop.opendefense.cloud/instance-uid'], ia?.metadata.uid);
    assert.equal(pb.metadata.labels?.['krop.opendefense.cloud/instance-uid'], ib?.metadata.uid);
    assert.notEqual(ia?.metadata.uid, ib?.metadata.uid);
  });

  it('keeps a provider and a host child of the same template identity apart', async () => {
    const twin = await hget('demo-agent');
    assert.deepEqual(twin?.data, { twin: 'host' });
    assert.ok(await pget(qualifiedName(p.clusterId, 'ns-a', 'demo', 'demo-agent', 'ConfigMap')));
  });

  it('sets owner references only where Kubernetes accepts them', async () => {
    const i = await inst();
    const same = await cget('demo-token');
    assert.deepEqual(
      same?.metadata.ownerReferences?.map((r) => r.uid),
      [i?.metadata.uid],
    );
    const other = await cget('demo-ns-a-elsewhere', 'elsewhere');
    assert.ok(other);
    assert.equal(other.metadata.ownerReferences, undefined);
    assert.equal(other.metadata.labels?.['krop.opendefense.cloud/instance-uid'], i?.metadata.uid);
  });

  it('prunes an includeWhen flip and a forEach shrink on their planes, never foreign objects', async () => {
    const gated = qualifiedName(p.clusterId, 'ns-a', 'demo', 'demo-gated', 'ConfigMap');
    assert.ok(await pget(gated));
    assert.ok(await hget('demo-z'));
    // Foreign objects of the same GVK and namespace: unlabelled, or another instance's UID.
    await apply(p.host.admin, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'foreign', namespace: 'default' },
    });
    await apply(p.host.admin, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'other-instance',
        namespace: 'default',
        labels: {
          'krop.opendefense.cloud/instance-uid': 'someone-else',
          'krop.opendefense.cloud/consumer-cluster': p.clusterId,
        },
      },
    });
    await apply(p.consumer.admin, demo('ns-a', { names: ['x', 'y'], gate: false }));
    await eventually('z and gated pruned', async () =>
      (await hget('demo-z')) === undefined && (await pget(gated)) === undefined ? true : undefined,
    );
    assert.ok(await hget('demo-x'));
    assert.ok(await hget('demo-y'));
    assert.ok(await hget('demo-agent'));
    assert.ok(await hget('foreign'));
    assert.ok(await hget('other-instance'));
    assert.ok(await pget(qualifiedName(p.clusterId, 'ns-a', 'demo', 'demo-agent', 'ConfigMap')));
  });

  it('a genuine CEL error is hard: ExpressionError, state ERROR, and a liveness record (design/planes.md §18.2–3)', async () => {
    await apply(p.consumer.admin, {
      apiVersion: AV,
      kind: 'Broken',
      metadata: { name: 'broken', namespace: 'ns-a' },
      spec: { name: 'broken' },
    });
    const o = await eventually('ExpressionError', async () => {
      const x = await inst('ns-a', 'Broken', 'broken');
      return cond(x, 'Ready')?.reason === 'ExpressionError' ? x : undefined;
    });
    assert.equal(cond(o, 'Ready')?.status, 'False');
    assert.equal((o.status as { state?: string }).state, 'ERROR');
    assert.equal(await cget('broken-bad'), undefined);
    const rec = await getObj(
      p.management.admin,
      'v1',
      'ConfigMap',
      livenessRecordName(p.clusterId, o.metadata.uid ?? ''),
      CONTROLLER_NS,
    );
    assert.ok(rec, 'an erroring first pass still leaves a liveness record');
  });

  it('the registrar: InvalidTarget at the CRD, ExportConflict for the newer blueprint, BuildFailed', async () => {
    await assert.rejects(
      apply(
        p.management.admin,
        blueprint('edge', 'Edge', [{ id: 'x', target: 'edge', template: cmT('x', {}) }]),
      ),
      (e: unknown) => isApiError(e) && e.code === 422 && /target/.test(e.message),
    );
    await apply(p.management.admin, { ...DEMO, metadata: { name: 'demo-copy' } });
    const copy = await eventually('ExportConflict', async () => {
      const b = await p.management.admin.get(BP('demo-copy'));
      return cond(b, 'Ready')?.reason === 'ExportConflict' ? b : undefined;
    });
    assert.match(
      cond(copy, 'Ready')?.message ?? '',
      /^resourcegraphdefinition\.krop\.opendefense\.cloud\/demo already produces demoes\.krop\.opendefense\.cloud/,
    );
    assert.equal(cond(await p.management.admin.get(BP('demo')), 'Ready')?.reason, 'Published');
    await apply(
      p.management.admin,
      blueprint('nons', 'NoNs', [{ id: 'orphan', target: 'provider', template: cmT('orphan', {}) }]),
    );
    const nons = await eventually('BuildFailed', async () => {
      const b = await p.management.admin.get(BP('nons'));
      return cond(b, 'Ready')?.reason === 'BuildFailed' ? b : undefined;
    });
    assert.match(cond(nons, 'Ready')?.message ?? '', /orphan.*provider.*metadata\.namespace/);
    assert.equal((nons.status as { exportedAPI?: string }).exportedAPI, undefined);
  });
});
