// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The instance finalizer and liveness records on real control planes (design/planes.md §11, §13.3, §18.2):
 * the first reconcile of an instance only adds kgraph's finalizer, nothing is
 * applied on any plane before it exists; an instance whose consumer write keeps being refused (an
 * admission policy in the consumer cluster) keeps refreshing its liveness record past StaleAfter, so
 * the sweeper, running on short timings, deletes nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { livenessRecordName, qualifiedName } from '../../../src/controller/planes/naming.ts';
import type { Connection } from '../../../src/controller/planes/published.ts';
import type { SweepReport } from '../../../src/controller/planes/sweeper.ts';
import { isApiError, type KubeObject } from '../../../src/kube/index.ts';
import { waitCrdEstablished } from '../../support/kube.ts';
import {
  AV,
  apply,
  blueprint,
  CONTROLLER_NS,
  cmT,
  cond,
  eventually,
  getObj,
  instanceOf,
  planesFixture,
  readyReason,
  sleep,
  waitEntry,
  waitFor,
  waitPublished,
} from './support.ts';

const NS = 'ns-a';
const STALE_MS = 4_000;

const planesOf = (name: string, kind: string) =>
  blueprint(
    name,
    kind,
    [
      { id: 'prov', target: 'provider', template: cmT('${schema.spec.name}-a', { a: 'b' }, 'default') },
      { id: 'onHost', target: 'host', template: cmT('${schema.spec.name}-h', { a: 'b' }, 'default') },
      { id: 'mine', template: cmT('${schema.spec.name}-c', { a: 'b' }) },
    ],
    { spec: { name: 'string' } },
  );

/** The consumer refuses ConfigMaps named `r-c` (422 Invalid from a ValidatingAdmissionPolicy). */
const POLICY: KubeObject[] = [
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'refuse-r-c' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['configmaps'],
          },
        ],
      },
      validations: [
        { expression: "object.metadata.name != 'r-c'", reason: 'Invalid', message: 'refused by policy' },
      ],
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'refuse-r-c' },
    spec: { policyName: 'refuse-r-c', validationActions: ['Deny'] },
  },
];

describe('planes: the instance finalizer and liveness records', () => {
  const pget = (instance: string, original: string) =>
    getObj(
      p.management.admin,
      'v1',
      'ConfigMap',
      qualifiedName(p.clusterId, NS, instance, original, 'ConfigMap'),
      'default',
    );
  const hget = (name: string) => getObj(p.host.admin, 'v1', 'ConfigMap', name, 'default');
  const cget = (name: string) => getObj(p.consumer.admin, 'v1', 'ConfigMap', name, NS);
  const record = (uid: string) =>
    getObj(p.management.admin, 'v1', 'ConfigMap', livenessRecordName(p.clusterId, uid), CONTROLLER_NS);

  const p = planesFixture({
    namespaces: [NS],
    prepare: async () => {
      for (const o of POLICY) await apply(p.consumer.admin, o);
      // The policy is enforced a moment after it is created: probe with a dry run.
      await eventually(
        'admission policy enforced',
        async () => {
          try {
            await p.consumer.admin.create(cmT('r-c', {}, NS) as KubeObject, { dryRun: true });
            return undefined;
          } catch (e) {
            return isApiError(e) && e.code === 422 ? true : undefined;
          }
        },
        30_000,
      );
    },
    controller: {
      timings: { staleAfterMs: STALE_MS, startupGraceMs: 0, sweepIntervalMs: 1_000, heartbeatMs: 1_000 },
    },
    blueprints: [planesOf('refused', 'Refused'), planesOf('first', 'First')],
    grants: ['refused'],
  });

  it('finalizer before the first apply: the first reconcile only adds the finalizer, children come with the next pass', async () => {
    // `first` is published but not served here (its serving role is not granted), so no serving loop
    // races the reconciles this test drives itself, with the consumer's admin credentials.
    await waitPublished(p, 'first');
    await waitEntry(p, p.consumer, 'first', (e) => e.reason === 'ServingNotGranted');
    const bp = p.controller.registrar.registry.get('first');
    assert.ok(bp);
    await apply(p.consumer.admin, bp.crd);
    await waitCrdEstablished(p.consumer.admin, bp.exportName);
    await eventually('First served by the API server', async () => {
      p.consumer.admin.discovery.invalidate(AV);
      return p.consumer.admin.discovery.resolveKind(AV, 'First').then(
        () => true,
        () => undefined,
      );
    });
    const conn: Connection = {
      name: p.consumer.name,
      clusterID: p.clusterId,
      client: p.consumer.admin,
      identity: { username: 'admin', groups: [] },
    };
    await apply(p.consumer.admin, instanceOf('First', 'f', NS, { name: 'f' }));
    const created = await p.consumer.admin.get({ apiVersion: AV, kind: 'First', namespace: NS, name: 'f' });
    assert.deepEqual(created.metadata.finalizers ?? [], []);

    const one = await p.controller.instances.reconcile(bp, conn, created);
    assert.equal(one.kind, 'finalizerAdded');
    const withFinalizer = await p.consumer.admin.get({
      apiVersion: AV,
      kind: 'First',
      namespace: NS,
      name: 'f',
    });
    assert.deepEqual(withFinalizer.metadata.finalizers, ['krop.opendefense.cloud/gc']);
    assert.equal(await pget('f', 'f-a'), undefined, 'no provider child after the first reconcile');
    assert.equal(await hget('f-h'), undefined, 'no host child after the first reconcile');
    assert.equal(await cget('f-c'), undefined, 'no consumer child after the first reconcile');
    assert.equal(await record(created.metadata.uid ?? ''), undefined, 'no liveness record either');
    assert.equal(cond(withFinalizer, 'Ready'), undefined, 'no status written');

    const two = await p.controller.instances.reconcile(bp, conn, withFinalizer);
    assert.equal(two.kind, 'reconciled');
    assert.equal(two.ready, true);
    assert.ok(await pget('f', 'f-a'));
    assert.ok(await hget('f-h'));
    assert.ok(await cget('f-c'));
    assert.ok(await record(created.metadata.uid ?? ''));
  });

  it('liveness on error: the refused consumer write keeps the record fresh past StaleAfter, the sweeper deletes nothing', async () => {
    await apply(p.consumer.admin, instanceOf('Refused', 'r', NS, { name: 'r' }));
    const failing = await waitFor(
      'ApplyFailed',
      () => getObj(p.consumer.admin, AV, 'Refused', 'r', NS),
      readyReason('ApplyFailed'),
    );
    assert.match(
      cond(failing, 'Ready')?.message ?? '',
      /apply configmap\/r-c -n ns-a on the consumer plane.*refused by policy/,
    );
    assert.equal((failing.status as { state?: string }).state, 'ERROR');
    const uid = failing.metadata.uid ?? '';
    const name = livenessRecordName(p.clusterId, uid);
    assert.ok(await pget('r', 'r-a'));
    assert.ok(await hget('r-h'));

    // Sample for 2.5 × StaleAfter while the write keeps being refused.
    const started = Date.now();
    const reports = new Set<unknown>();
    let freshAfterStale = 0;
    while (Date.now() - started < 2.5 * STALE_MS) {
      await sleep(1_000);
      const rec = await record(uid);
      assert.ok(rec, 'the record exists');
      const last = Date.parse((rec.data as { lastReconciled?: string }).lastReconciled ?? '');
      // RFC 3339 with whole seconds: allow one second of truncation.
      assert.ok(Date.now() - last <= STALE_MS + 1_000, `record refreshed (age ${Date.now() - last} ms)`);
      const report: SweepReport | undefined = p.controller.sweeper.lastReport;
      if (report?.decisions.has(name)) {
        assert.equal(report.decisions.get(name), 'fresh');
        if (Date.now() - started > STALE_MS) {
          reports.add(report);
          freshAfterStale += 1;
        }
      }
      assert.ok(await pget('r', 'r-a'), 'provider child kept');
      assert.ok(await hget('r-h'), 'host child kept');
      assert.equal(
        readyReason('ApplyFailed')((await getObj(p.consumer.admin, AV, 'Refused', 'r', NS)) as KubeObject),
        true,
      );
    }
    assert.ok(
      freshAfterStale >= 2 && reports.size >= 2,
      'the sweeper ran on the record after StaleAfter had passed',
    );
    assert.equal(await cget('r-c'), undefined, 'the refused child never exists');
  });
});
