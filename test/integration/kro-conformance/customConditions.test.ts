// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's custom instance conditions (kro instance_custom_conditions_test.go), ported: `runtime.newCondition`
 * entries under `schema.status.conditions` replace kro's built-ins on the wire, keep their transition
 * time while unchanged, may override a built-in type (while `runtime.condition` still reads kro's own
 * value), drop computed duplicates (state ERROR), survive while their data is pending, and leave once
 * the block is removed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  type Cond,
  cm,
  eventually,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
} from '../rgd/support.ts';
import { holdsFor } from './support.ts';

const BUILTINS = ['InstanceManaged', 'GraphResolved', 'ResourcesReady', 'Ready'];
const conds = (o: KubeObject | undefined): Cond[] =>
  ((o?.status as { conditions?: Cond[] } | undefined)?.conditions ?? []) as Cond[];
const byType = (o: KubeObject | undefined, type: string) => conds(o).find((c) => c.type === type);
const types = (o: KubeObject | undefined) => conds(o).map((c) => c.type);

describe('kro conformance: instance custom conditions', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-cc');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const define = async (
    name: string,
    kind: string,
    spec: Record<string, unknown>,
    conditions: string[] | undefined,
    configmap: { labels?: boolean; readyWhen?: string[]; data?: Record<string, string> } = {},
  ) => {
    const template = cm(
      '${schema.spec.name}',
      configmap.data ?? { foo: '${schema.spec.name}' },
      configmap.labels ? { labels: { app: '${schema.spec.label}' } } : {},
    );
    await applyRgd(
      client,
      rgd(f, name, { kind, spec, ...(conditions ? { status: { conditions } } : {}) }, [
        { id: 'configmap', template, ...(configmap.readyWhen ? { readyWhen: configmap.readyWhen } : {}) },
      ]),
    );
    const r = await waitRgd(client, name, 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
  };
  const until = async (kind: string, what: string, check: (o: KubeObject) => boolean) => {
    let last: unknown;
    return eventually(`${kind} demo: ${what}`, async () => {
      const o = await getInstance(client, f, kind, 'demo');
      last = o?.status;
      return o && check(o) ? o : undefined;
    }).catch((e: Error) => {
      throw new Error(`${e.message}; last status: ${JSON.stringify(last)}`);
    });
  };
  const remove = async (kind: string) => {
    const ref = { apiVersion: `${f.group}/v1alpha1`, kind, namespace: f.ns, name: 'demo' };
    await client.delete(ref);
    await eventually(`${kind} demo finalized`, async () =>
      (await client.getOrUndefined(ref)) === undefined ? true : undefined,
    );
  };

  it('writes author-defined conditions to status.conditions', async () => {
    const kind = 'TestCcHappy';
    await define('test-cc-happy', kind, { name: 'string' }, [
      "${runtime.newCondition({type: 'PrimaryReady', status: 'True', reason: 'OK', message: 'always healthy in this test'})}",
      "${runtime.newCondition({type: 'AppReady', status: 'False', reason: 'Init', message: ''})}",
    ]);
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo' }));
    const o = await until(kind, 'PrimaryReady and AppReady', (i) => {
      const p = byType(i, 'PrimaryReady');
      return p !== undefined && p.observedGeneration === i.metadata.generation && !!byType(i, 'AppReady');
    });
    const primary = byType(o, 'PrimaryReady') as Cond & { lastTransitionTime?: string };
    assert.equal(primary.status, 'True');
    assert.equal(primary.reason, 'OK');
    assert.equal(primary.message, 'always healthy in this test');
    assert.ok(primary.lastTransitionTime);
    const app = byType(o, 'AppReady');
    assert.equal(app?.status, 'False');
    assert.equal(app?.reason, 'Init');
    for (const t of BUILTINS) assert.ok(!types(o).includes(t), `${t} must not be on the wire`);
    await remove(kind);
  });

  it('preserves lastTransitionTime when condition status is unchanged', async () => {
    const kind = 'TestCcLtt';
    await define(
      'test-cc-ltt',
      kind,
      { name: 'string', label: 'string | default=initial' },
      ["${runtime.newCondition({type: 'AlwaysTrue', status: 'True', reason: 'X', message: ''})}"],
      { labels: true },
    );
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo', label: 'initial' }));
    const first = await until(kind, 'AlwaysTrue', (i) => !!byType(i, 'AlwaysTrue'));
    const firstLtt = (byType(first, 'AlwaysTrue') as { lastTransitionTime?: string }).lastTransitionTime;
    assert.ok(firstLtt);
    await new Promise((r) => setTimeout(r, 1_100)); // a new transition time would differ by a second
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo', label: 'updated' }));
    const later = await until(
      kind,
      'AlwaysTrue at the new generation',
      (i) =>
        byType(i, 'AlwaysTrue')?.observedGeneration === i.metadata.generation &&
        (i.metadata.generation ?? 0) > 1,
    );
    assert.equal(
      (byType(later, 'AlwaysTrue') as { lastTransitionTime?: string }).lastTransitionTime,
      firstLtt,
    );
    await remove(kind);
  });

  it('emits kro built-in conditions when no conditions: block is present', async () => {
    const kind = 'TestCcBackCompat';
    await define('test-cc-backcompat', kind, { name: 'string' }, undefined);
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo' }));
    const o = await until(kind, 'Ready=True', (i) => byType(i, 'Ready')?.status === 'True');
    for (const t of BUILTINS) assert.ok(types(o).includes(t), t);
    await remove(kind);
  });

  it("honors an author-defined Ready that overrides kro's lifecycle Ready", async () => {
    const kind = 'TestCcAuthorReady';
    await define('test-cc-author-ready', kind, { name: 'string' }, [
      "${runtime.newCondition({type: 'Ready', status: 'False', reason: 'AuthorSaysNo', message: 'this is a test'})}",
    ]);
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo' }));
    const o = await until(kind, 'author Ready', (i) => byType(i, 'Ready')?.reason === 'AuthorSaysNo');
    assert.equal(byType(o, 'Ready')?.status, 'False');
    assert.equal(byType(o, 'Ready')?.message, 'this is a test');
    await remove(kind);
  });

  it('evaluates conditions against schema.spec fields and updates them when spec changes', async () => {
    const kind = 'TestCcSchemaRead';
    await define('test-cc-schema-read', kind, { name: 'string', healthy: 'boolean | default=true' }, [
      "${runtime.newCondition({type: 'AppReady', status: schema.spec.healthy ? 'True' : 'False', reason: 'CheckedSpec', message: ''})}",
    ]);
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo', healthy: true }));
    await until(kind, 'AppReady=True', (i) => byType(i, 'AppReady')?.status === 'True');
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo', healthy: false }));
    await until(kind, 'AppReady=False', (i) => byType(i, 'AppReady')?.status === 'False');
    await remove(kind);
  });

  it("runtime.condition reads kro's internal value, not the author's wire override", async () => {
    const kind = 'TestCcInternalNotWire';
    await define(
      'test-cc-internal-not-wire',
      kind,
      { name: 'string' },
      [
        "${runtime.newCondition({type: 'ResourcesReady', status: 'True', reason: 'AuthorOverride', message: 'author claims ready'})}",
        "${runtime.newCondition({type: 'DerivedReady', status: runtime.condition(schema, 'ResourcesReady').status, reason: 'MirrorsKroInternal', message: ''})}",
      ],
      { readyWhen: ['${configmap.data["ready"] == "true"}'] },
    );
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo' }));
    const o = await until(kind, 'override and derived', (i) => !!byType(i, 'DerivedReady'));
    const rr = byType(o, 'ResourcesReady');
    assert.equal(rr?.status, 'True');
    assert.equal(rr?.reason, 'AuthorOverride');
    assert.equal(byType(o, 'DerivedReady')?.status, 'False');
    await remove(kind);
  });

  it('drops runtime-duplicate condition types, sets state=Error, keeps survivors', async () => {
    const kind = 'TestCcDupType';
    await define('test-cc-dup-type', kind, { name: 'string' }, [
      "${runtime.newCondition({type: 'Survivor', status: 'True', reason: '', message: ''})}",
      "${runtime.newCondition({type: 'Same-' + schema.spec.name, status: 'True', reason: '', message: ''})}",
      "${runtime.newCondition({type: 'Same-' + schema.spec.name, status: 'False', reason: '', message: ''})}",
    ]);
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo' }));
    const o = await until(
      kind,
      'state ERROR',
      (i) => (i.status as { state?: string } | undefined)?.state === 'ERROR',
    );
    assert.ok(byType(o, 'Survivor'), 'Survivor must remain on the wire');
    assert.equal(byType(o, 'Same-demo'), undefined, 'both copies of the duplicated type must be dropped');
    await remove(kind);
  });

  it('preserves lastTransitionTime for author conditions overriding built-in types', async () => {
    const kind = 'TestCcOverrideLtt';
    await define(
      'test-cc-override-ltt',
      kind,
      { name: 'string', label: 'string | default=initial' },
      [
        "${runtime.newCondition({type: 'ResourcesReady', status: 'True', reason: 'AuthorOverride', message: ''})}",
      ],
      { labels: true, readyWhen: ['${configmap.data["ready"] == "true"}'] },
    );
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo', label: 'initial' }));
    const first = await until(
      kind,
      'ResourcesReady=True',
      (i) => byType(i, 'ResourcesReady')?.status === 'True',
    );
    const firstLtt = (byType(first, 'ResourcesReady') as { lastTransitionTime?: string }).lastTransitionTime;
    assert.ok(firstLtt);
    await new Promise((r) => setTimeout(r, 1_100));
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo', label: 'updated' }));
    const later = await until(
      kind,
      'ResourcesReady at the new generation',
      (i) =>
        byType(i, 'ResourcesReady')?.observedGeneration === i.metadata.generation &&
        (i.metadata.generation ?? 0) > 1,
    );
    assert.equal(
      (byType(later, 'ResourcesReady') as { lastTransitionTime?: string }).lastTransitionTime,
      firstLtt,
    );
    await remove(kind);
  });

  it('preserves a previously written condition while its data is pending', async () => {
    const kind = 'TestCcDataPending';
    await define(
      'test-cc-data-pending',
      kind,
      { name: 'string', key: 'string' },
      [
        "${runtime.newCondition({type: 'Static', status: 'True', reason: '', message: ''})}",
        "${runtime.newCondition({type: 'DataDriven', status: configmap.data[schema.spec.key] == 'x' ? 'True' : 'False', reason: 'FromConfigMap', message: ''})}",
      ],
      { data: { phase: 'x' } },
    );
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo', key: 'phase' }));
    await until(kind, 'DataDriven=True', (i) => byType(i, 'DataDriven')?.status === 'True');
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo', key: 'missing' }));
    await holdsFor(
      'DataDriven kept, no built-ins',
      async () => {
        const i = await getInstance(client, f, kind, 'demo');
        return byType(i, 'DataDriven')?.status === 'True' && BUILTINS.every((t) => !types(i).includes(t));
      },
      10_000,
    );
    await remove(kind);
  });

  it('removes leftover author conditions after the conditions block is removed', async () => {
    const kind = 'TestCcBlockRemoved';
    await define('test-cc-block-removed', kind, { name: 'string' }, [
      "${runtime.newCondition({type: 'AppReady', status: 'True', reason: '', message: ''})}",
    ]);
    await applyInstance(client, instance(f, kind, 'demo', { name: 'demo' }));
    await until(kind, 'AppReady', (i) => !!byType(i, 'AppReady'));
    await define('test-cc-block-removed', kind, { name: 'string' }, undefined);
    await until(kind, 'AppReady gone, Ready back', (i) => !byType(i, 'AppReady') && !!byType(i, 'Ready'));
    await remove(kind);
  });
});
