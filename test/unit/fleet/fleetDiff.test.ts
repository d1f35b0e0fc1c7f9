// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The pure fleet diff (design/rgd.md §19.9): an RGD edit compiled by the real compiler, instances and
 * their children as the controller leaves them (stamped, owned by its manager), and what the next
 * reconcile would write under the new spec.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { desiredTemplates } from '../../../src/controller/core/desired.ts';
import { APPLYSET_MANAGER, applySetId } from '../../../src/controller/rgd/names.ts';
import { stampChild } from '../../../src/controller/rgd/stamp.ts';
import { fieldChanges } from '../../../src/fleet/fieldDiff.ts';
import { diffFleet, type FleetSide } from '../../../src/fleet/fleetDiff.ts';
import { exitCodeOf, formatReport } from '../../../src/fleet/report.ts';
import { validateAgainst } from '../../../src/fleet/validateSpec.ts';
import type { CompiledGraph } from '../../../src/graph/model.ts';
import { validatePaths } from '../../../src/graph/validate.ts';
import { evaluate, type KubeObject, observedFromObjects } from '../../../src/runtime/index.ts';

const GROUP = 'fleet.kgraph.test';

function rgdObject(
  spec: Record<string, unknown>,
  resources: unknown[],
  annotations: Record<string, string> = {},
) {
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: { name: 'webapp', annotations },
    spec: { schema: { apiVersion: 'v1alpha1', group: GROUP, kind: 'WebApp', spec }, resources },
  };
}

function compile(rgd: Record<string, unknown>, label: string): FleetSide {
  const file = `${label}.yaml`;
  const r = validatePaths([file], { inline: new Map([[file, stringify(rgd)]]) });
  const o = r.objects[0]!;
  assert.ok(o.accepted && r.results[0]!.graph, o.diagnostics.map((d) => d.message).join('; '));
  return { rgd, graph: r.results[0]!.graph as CompiledGraph, label };
}

const cm = (suffix: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `\${schema.metadata.name}-${suffix}` },
  data,
});

const v1 = rgdObject({ color: 'string | default="blue"', big: 'boolean | default=false' }, [
  { id: 'config', template: cm('config', { color: '${schema.spec.color}', tier: 'web' }) },
  { id: 'extra', includeWhen: ['${schema.spec.big}'], template: cm('extra', { size: 'large' }) },
  { id: 'old', template: cm('old', { legacy: 'yes' }) },
]);
// The edit: `config` gets a new key and drops `tier`, `old` goes, `fresh` is new, `extra` is unchanged.
const v2 = rgdObject({ color: 'string | default="blue"', big: 'boolean | default=false' }, [
  { id: 'config', template: cm('config', { color: '${schema.spec.color}', owner: 'platform' }) },
  { id: 'extra', includeWhen: ['${schema.spec.big}'], template: cm('extra', { size: 'large' }) },
  { id: 'fresh', template: cm('fresh', { hello: 'world' }) },
  // Waits for a ConfigMap no instance has.
  {
    id: 'late',
    template: cm('late', { from: '${missing.data.x}' }),
  },
  { id: 'missing', externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nowhere' } } },
]);

function instance(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'WebApp',
    metadata: { name, namespace: 'team', uid: `uid-${name}` },
    spec: { color: 'blue', big: false, ...spec },
  };
}

/** The children the controller left for `inst` under `side`: stamped, owned by its apply manager. */
function converged(side: FleetSide, inst: KubeObject): KubeObject[] {
  const meta = inst.metadata as { name: string; namespace: string; uid: string };
  const identity = {
    uid: meta.uid,
    name: meta.name,
    namespace: meta.namespace,
    group: GROUP,
    version: 'v1alpha1',
    kind: 'WebApp',
    applySetId: applySetId(meta.name, meta.namespace, 'WebApp', GROUP),
  };
  const result = evaluate(side.graph, {
    instance: inst,
    observed: observedFromObjects([]),
    namespace: meta.namespace,
  });
  return desiredTemplates(result, (v, item) => stampChild(v, item, identity)).map((d) => owned(d.obj));
}

function owned(obj: Record<string, unknown>): KubeObject {
  const fields = (v: unknown): Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [`f:${k}`, fields(x)]))
      : {};
  const { apiVersion: _a, kind: _k, metadata, ...rest } = obj;
  const { name: _n, namespace: _ns, ...m } = metadata as Record<string, unknown>;
  return {
    ...obj,
    metadata: {
      ...(metadata as Record<string, unknown>),
      uid: `u-${String((metadata as { name: string }).name)}`,
      managedFields: [
        {
          manager: APPLYSET_MANAGER,
          operation: 'Apply',
          apiVersion: 'v1',
          fieldsV1: fields({ metadata: m, ...rest }),
        },
      ],
    },
  };
}

describe('fleet diff', () => {
  const from = compile(v1, 'v1');
  const to = compile(v2, 'v2');
  const small = instance('small', {});
  const big = instance('big', { big: true, color: 'red' });

  it('reports per instance the changed fields, the added, the pruned and the waiting', () => {
    const objects = [...converged(from, small), ...converged(from, big)];
    const report = diffFleet('webapp', from, to, {
      instances: [small, big],
      objects,
      types: [{ apiVersion: 'v1', kind: 'ConfigMap', namespaced: true }],
    });
    const byName = new Map(report.instances.map((i) => [i.name, i]));
    const brief = (name: string) =>
      byName
        .get(name)!
        .objects.map(
          (o) =>
            `${o.action} ${o.name}${o.fields ? ` ${o.fields.map((f) => `${f.op}:${f.path}`).join(',')}` : ''}`,
        );
    assert.deepEqual(brief('small'), [
      'change small-config set:data.owner,remove:data.tier',
      'add small-fresh',
      'prune small-old',
    ]);
    // `extra` renders the same for `big`: not reported; the changed ConfigMap carries its own colour.
    assert.deepEqual(brief('big'), [
      'change big-config set:data.owner,remove:data.tier',
      'add big-fresh',
      'prune big-old',
    ]);
    assert.deepEqual(
      byName.get('small')!.waits.map((w) => w.node),
      ['missing', 'late'],
    );
    assert.equal(report.summary.affected, 2);
    assert.equal(report.schema.verdict, 'compatible');
    assert.equal(exitCodeOf(report), 1);
    const text = formatReport(report);
    assert.match(text, /change {3}ConfigMap\/small-config {2}\(config\)/);
    assert.match(text, /~ data\.owner: \(none\) → "platform"/);
    assert.match(text, /- data\.tier: "web"/);
  });

  it('a child reading a child the same reconcile creates is added too (the passes of one reconcile)', () => {
    const chained = rgdObject({ color: 'string | default="blue"', big: 'boolean | default=false' }, [
      ...(v1.spec as { resources: unknown[] }).resources,
      { id: 'first', template: cm('first', { v: 'one' }) },
      { id: 'second', template: cm('second', { from: '${first.data.v}' }) },
      // Waits for a readiness the new object cannot have yet: decided on a later reconcile.
      {
        id: 'gated',
        readyWhen: ['${has(gated.status)}'],
        template: cm('gated', { x: '${second.data.from}' }),
      },
      { id: 'late', template: cm('late', { from: '${gated.data.x}' }) },
    ]);
    const report = diffFleet('webapp', from, compile(chained, 'chained'), {
      instances: [small],
      objects: converged(from, small),
      types: [{ apiVersion: 'v1', kind: 'ConfigMap', namespaced: true }],
    });
    const [i] = report.instances;
    assert.deepEqual(
      i?.objects.map((o) => `${o.action} ${o.name}`),
      ['add small-first', 'add small-gated', 'add small-second'],
    );
    assert.deepEqual(
      i?.waits.map((w) => w.node),
      ['late'],
    );
  });

  it('the same spec against converged children changes nothing: exit code 0', () => {
    const objects = [...converged(from, small), ...converged(from, big)];
    const report = diffFleet('webapp', from, compile(v1, 'again'), {
      instances: [small, big],
      objects,
      types: [{ apiVersion: 'v1', kind: 'ConfigMap', namespaced: true }],
    });
    assert.deepEqual(
      report.instances.map((i) => i.objects.length),
      [0, 0],
    );
    assert.equal(exitCodeOf(report), 0);
  });

  it('a child edited by hand is drift: the current spec would write it too', () => {
    const objects = converged(from, small).map((o) =>
      (o.metadata as { name: string }).name === 'small-old' ? { ...o, data: { legacy: 'no' } } : o,
    );
    const report = diffFleet('webapp', from, compile(v1, 'again'), {
      instances: [small],
      objects,
      types: [{ apiVersion: 'v1', kind: 'ConfigMap', namespaced: true }],
    });
    const [o] = report.instances[0]!.objects;
    assert.equal(o?.action, 'change');
    assert.equal(o?.drift, true);
    assert.deepEqual(o?.fields, [{ path: 'data.legacy', op: 'set', from: 'no', to: 'yes' }]);
  });

  it('a breaking schema change is refused without the opt-in (nothing reconciled); with it, instances invalid under the new schema are named', () => {
    const narrowed = (annotations: Record<string, string>) =>
      rgdObject(
        { color: 'string | enum="blue,green" default="blue"', big: 'boolean | default=false' },
        (v1.spec as { resources: unknown[] }).resources,
        annotations,
      );
    const objects = [...converged(from, small), ...converged(from, big)];
    const types = [{ apiVersion: 'v1', kind: 'ConfigMap', namespaced: true }];
    const refused = diffFleet('webapp', from, compile(narrowed({}), 'narrow'), {
      instances: [small, big],
      objects,
      types,
    });
    assert.equal(refused.schema.verdict, 'refused');
    assert.deepEqual(
      refused.schema.breaking.map((c) => c.kind),
      ['EnumRestricted'],
    );
    assert.deepEqual(
      refused.instances.map((i) => [i.name, i.skipped?.slice(0, 15), i.objects.length]),
      [
        ['big', 'not reconciled:', 0],
        ['small', 'not reconciled:', 0],
      ],
    );
    assert.equal(exitCodeOf(refused), 1);
    const allowed = diffFleet(
      'webapp',
      from,
      compile(narrowed({ 'kro.run/allow-breaking-changes': 'true' }), 'narrow'),
      { instances: [small, big], objects, types },
    );
    assert.equal(allowed.schema.verdict, 'breaking-allowed');
    assert.deepEqual(
      allowed.instances.map((i) => [i.name, i.invalid ?? []]),
      [
        ['big', ['spec.color: "red" is not one of "blue", "green"']],
        ['small', []],
      ],
    );
  });

  it('suspended instances are skipped', () => {
    const suspended = {
      ...small,
      metadata: { ...(small.metadata as object), annotations: { 'kro.run/reconcile': 'suspended' } },
    };
    const report = diffFleet('webapp', from, to, { instances: [suspended], objects: [], types: [] });
    assert.equal(report.instances[0]?.skipped, 'suspended (kro.run/reconcile)');
    assert.equal(report.summary.skipped, 1);
  });

  it('instances pinned by policy or by revision number are skipped; an unreadable pin stops the instance', () => {
    const annotated = (name: string, annotations: Record<string, string>) => ({
      ...instance(name, {}),
      metadata: { ...(instance(name, {}).metadata as object), annotations },
    });
    const report = diffFleet('webapp', from, to, {
      instances: [
        annotated('manual', { 'kgraph.dev/revision-policy': 'Manual' }),
        annotated('at3', { 'kgraph.dev/revision': '3' }),
        annotated('bad', { 'kgraph.dev/revision': 'three' }),
      ],
      objects: [],
      types: [],
    });
    assert.deepEqual(
      report.instances.map((i) => [i.name, i.skipped]),
      [
        ['at3', 'pinned (kgraph.dev/revision: 3)'],
        ['bad', 'stopped: kgraph.dev/revision must be a revision number (1, 2, …), not "three"'],
        ['manual', 'pinned (kgraph.dev/revision-policy: Manual)'],
      ],
    );
    assert.equal(report.summary.skipped, 3);
  });
});

describe('field changes', () => {
  it('named list items compare by name; server-defaulted fields are no change', () => {
    const live = {
      spec: {
        containers: [
          { name: 'web', image: 'nginx:1', imagePullPolicy: 'IfNotPresent' },
          { name: 'side', image: 'x' },
        ],
      },
    };
    const prev = {
      spec: {
        containers: [
          { name: 'web', image: 'nginx:1' },
          { name: 'side', image: 'x' },
        ],
      },
    };
    const next = { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } };
    assert.deepEqual(fieldChanges(live, prev, next), [
      { path: 'spec.containers[name=web].image', op: 'set', from: 'nginx:1', to: 'nginx:2' },
      { path: 'spec.containers[name=side]', op: 'remove', from: { name: 'side', image: 'x' } },
    ]);
    assert.deepEqual(fieldChanges(live, prev, prev), []);
  });

  it('quantities compare as stored', () => {
    assert.deepEqual(fieldChanges({ spec: { cpu: '1' } }, undefined, { spec: { cpu: '1000m' } }), []);
  });
});

describe('spec validation against a schema', () => {
  it('types, required, enum, bounds and unknown fields', () => {
    const schema = {
      type: 'object' as const,
      required: ['name'],
      properties: {
        name: { type: 'string' as const, maxLength: 3 },
        replicas: { type: 'integer' as const, minimum: 1 },
        mode: { type: 'string' as const, enum: ['a', 'b'] },
      },
    };
    assert.deepEqual(validateAgainst({ replicas: 0, mode: 'c', name: 'long', extra: 1 }, schema), [
      'spec.replicas: value 0 below the minimum 1',
      'spec.mode: "c" is not one of "a", "b"',
      'spec.name: length 4 above the maximum 3',
      'spec.extra: not in the schema (the API server drops it)',
    ]);
    assert.deepEqual(validateAgainst({ replicas: '2' }, schema), [
      'spec.name: required',
      'spec.replicas: string where the schema wants integer',
    ]);
  });
});
