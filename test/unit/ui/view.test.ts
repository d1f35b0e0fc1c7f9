// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} expressions
/**
 * The pure parts of `kgraph ui`: entry keys, the rendered-vs-live diff, the controller's verdicts
 * mapped to nodes, the located pending expression, and the view built from an offline render.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runRender } from '../../../src/cli/commands/render.ts';
import { entryKey, parseEntryKey } from '../../../src/ui/model.ts';
import { controllerVerdict } from '../../../src/ui/nodeStates.ts';
import { diffObject } from '../../../src/ui/objectDiff.ts';
import { offlineSource } from '../../../src/ui/offlineSource.ts';

const root = join(import.meta.dirname, '../../..');

describe('entry keys', () => {
  it('round-trip Graphs, RGDs and instances', () => {
    const cases = [
      { type: 'Graph', namespace: 'ns-a', name: 'g1' },
      { type: 'RGD', name: 'webapp' },
      { type: 'Instance', apiVersion: 'kro.run/v1alpha1', kind: 'WebApp', namespace: 'n', name: 'x' },
      { type: 'Instance', apiVersion: 'example.com/v1', kind: 'Cluster', name: 'c' },
    ] as const;
    for (const c of cases) assert.deepEqual(parseEntryKey(entryKey(c)), c);
    assert.equal(parseEntryKey('graph:nope'), undefined);
    assert.equal(parseEntryKey('what:ever'), undefined);
  });
});

describe('diffObject', () => {
  it('compares the rendered leaves only; fields the server added are not differences', () => {
    const rendered = {
      metadata: { name: 'a', labels: { x: '1' } },
      spec: { ports: [{ port: 80 }], replicas: 2n },
    };
    const live = {
      metadata: { name: 'a', uid: 'u', labels: { x: '2', other: 'y' } },
      spec: { ports: [{ port: 80, protocol: 'TCP' }], replicas: 2, clusterIP: '10.0.0.1' },
      status: {},
    };
    const rows = diffObject(rendered, live);
    assert.deepEqual(
      rows.map((r) => [r.path, r.change]),
      [
        ['metadata.name', 'same'],
        ['metadata.labels.x', 'changed'],
        ['spec.ports[0].port', 'same'],
        ['spec.replicas', 'same'],
      ],
    );
    assert.equal(rows[1]!.live, '"2"');
  });

  it('marks leaves absent from the live object as missing', () => {
    const rows = diffObject({ data: { a: '1', b: '2' } }, { data: { a: '1' } });
    assert.deepEqual(
      rows.map((r) => [r.path, r.change, r.live]),
      [
        ['data.a', 'same', '"1"'],
        ['data.b', 'missing', null],
      ],
    );
  });
});

describe('controllerVerdict', () => {
  const id = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'cm' };
  it('finds a field-manager conflict about the object in ResourcesConverged', () => {
    const v = controllerVerdict(
      [
        {
          type: 'ResourcesConverged',
          status: 'False',
          reason: 'FieldManagerConflict',
          message:
            'configmap/other -n ns: field conflict on .data.x (owned by g2); configmap/cm -n ns: field conflict on .data.y (owned by kro-graphengine.tmpl.abc)',
        },
      ],
      id,
    );
    assert.deepEqual(v, {
      state: 'conflict',
      message: 'configmap/cm -n ns: field conflict on .data.y (owned by kro-graphengine.tmpl.abc)',
    });
  });
  it('finds a failed apply, and says nothing once the condition is True', () => {
    const failed = {
      type: 'ResourcesConverged',
      status: 'False',
      reason: 'ApplyFailed',
      message: 'apply configmap/cm -n ns: 422 Invalid: bad',
    };
    assert.equal(controllerVerdict([failed], id)?.state, 'failed');
    assert.equal(controllerVerdict([{ ...failed, status: 'True' }], id), undefined);
    assert.equal(controllerVerdict([failed], { ...id, name: 'cm2' }), undefined);
    assert.equal(controllerVerdict([failed], { ...id, name: 'c' }), undefined);
    assert.equal(controllerVerdict([failed], { ...id, namespace: 'n' }), undefined);
  });
});

describe('offline view', () => {
  it('shows the render of the showcase: every node ready or excluded, collections with their item count', async () => {
    const source = offlineSource({
      description: 'test',
      files: [],
      render: () => {
        const run = runRender(join(root, 'examples/graphs/showcase.yaml'), {
          state: [
            join(root, 'examples/cluster/showcase-settings.yaml'),
            join(root, 'examples/state/showcase-observed.yaml'),
          ],
          crd: [],
          output: 'json',
        });
        assert.ok(run.details);
        return run.details;
      },
    });
    const [entry] = source.entries();
    assert.equal(entry?.key, 'graph:kgraph-examples/showcase');
    const view = await source.view(entry!.key);
    assert.ok(view);
    assert.match(view.title, /^graph\.kro\.run\/showcase \(.*showcase\.yaml, offline\)$/);
    assert.match(view.svg, /^<svg/);
    assert.match(view.svg, /<title>backend\.deployment<\/title>/);
    const states = Object.fromEntries(view.nodes.map((n) => [n.path, n.state]));
    assert.deepEqual(states, {
      settings: 'ready',
      app: 'ready',
      tierConfigs: 'ready',
      tierServices: 'ready',
      debug: 'excluded',
      backend: 'ready',
      'backend.deployment': 'ready',
      'backend.service': 'ready',
      policy: 'ready',
      settingsNote: 'ready',
    });
    const tiers = view.nodes.find((n) => n.path === 'tierConfigs')!;
    assert.equal(tiers.count, 2);
    assert.deepEqual(
      tiers.objects.map((o) => o.identity),
      ['configmap/showcase-web -n kgraph-examples', 'configmap/showcase-api -n kgraph-examples'],
    );
    await source.close();
  });

  it('locates a pending expression in the source and an invalid graph by its diagnostic', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-ui-unit-'));
    const file = join(dir, 'g.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: kro.run/v1alpha1',
        'kind: Graph',
        'metadata: {name: g, namespace: ns}',
        'spec:',
        '  nodes:',
        '    - id: cm',
        '      ref: {apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}}',
        '    - id: out',
        '      template:',
        '        apiVersion: v1',
        '        kind: ConfigMap',
        '        metadata: {name: out}',
        '        data:',
        '          value: ${cm.data.value}',
        '',
      ].join('\n'),
    );
    const state = join(dir, 'state.yaml');
    writeFileSync(state, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: ns}\ndata: {}\n');
    const render = () => runRender(file, { state: [state], crd: [], output: 'json' }).details!;
    const source = offlineSource({ description: 't', files: [], render });
    const view = await source.view('graph:ns/g');
    const out = view?.nodes.find((n) => n.path === 'out');
    assert.equal(out?.state, 'pending');
    assert.equal(out?.issue?.expression, '${cm.data.value}');
    assert.deepEqual(out?.issue?.location, { file, line: 14, column: 18 });
    assert.match(out?.issue?.text ?? '', /g\.yaml:14:18/);

    writeFileSync(file, `${render().source!.text.replace('${cm.data.value}', '${nothere.data}')}`);
    const bad = offlineSource({ description: 't', files: [], render });
    const v2 = await bad.view('graph:ns/g');
    const d = v2?.diagnostics.find((x) => x.severity === 'error');
    assert.ok(d, 'an error diagnostic');
    assert.equal(d.location?.line, 14);
    assert.match(d.text, /g\.yaml:14:\d+ - error KG\d{4}/);
    assert.ok(v2?.nodes.every((n) => n.state === 'unknown'));
    await source.close();
    await bad.close();
  });
});
