// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Graphs with the same spec share one compiled graph: the second compile is answered
 * from the spec-hash cache with the same model under its own name and namespace; a different spec, a
 * rejected spec and an invalidation (CRD change) compile again. Against the shared control plane's
 * schemas; then two Graphs of one spec in two namespaces converge under one controller.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GraphCompiler } from '../../../src/controller/core/graphCompiler.ts';
import type { KubeObject } from '../../../src/kube/index.ts';
import { uniqueName } from '../../support/controlPlane.ts';
import { adminClient, eventually, installWidgetCRD } from '../../support/kube.ts';
import {
  applyGraph,
  cm,
  getCm,
  graph,
  graphNamespace,
  startController,
  stopController,
  waitCondition,
} from './support.ts';

const nodes = [
  { id: 'base', template: cm('base', { v: '1' }) },
  { id: 'derived', template: cm('derived', { from: '${base.metadata.name}' }) },
];

describe('compiled graphs shared by spec', () => {
  it('answers a second Graph of the same spec from the cache, under its own name', async () => {
    const compiler = new GraphCompiler(await adminClient(), { share: true });
    const a = await compiler.compile(graph('ns-a', 'one', nodes));
    const b = await compiler.compile(graph('ns-b', 'two', nodes));
    assert.equal(a.accepted, true);
    assert.equal(b.accepted, true);
    assert.equal(compiler.sharedHits, 1);
    assert.equal(b.compiled?.root, a.compiled?.root, 'one model');
    assert.deepEqual(
      [b.compiled?.name, b.compiled?.namespace, b.compiled?.file],
      ['two', 'ns-b', 'Graph ns-b/two'],
    );
    assert.deepEqual([a.compiled?.name, a.compiled?.namespace], ['one', 'ns-a']);

    const other = await compiler.compile(
      graph('ns-a', 'three', [{ id: 'base', template: cm('x', { v: '2' }) }]),
    );
    assert.equal(other.accepted, true);
    assert.equal(compiler.sharedHits, 1, 'another spec compiles');

    const bad: KubeObject = graph('ns-a', 'bad', [{ id: 'x', template: cm('y', { v: '${nope.v}' }) }]);
    assert.equal((await compiler.compile(bad)).accepted, false);
    assert.equal(
      (await compiler.compile({ ...bad, metadata: { name: 'bad2', namespace: 'ns-a' } })).accepted,
      false,
    );
    assert.equal(compiler.sharedHits, 1, 'rejected compiles are not shared');

    compiler.invalidate();
    await compiler.compile(graph('ns-c', 'four', nodes));
    assert.equal(compiler.sharedHits, 1, 'an invalidation compiles again');

    const unshared = new GraphCompiler(await adminClient());
    const c = await unshared.compile(graph('ns-a', 'one', nodes));
    const d = await unshared.compile(graph('ns-b', 'two', nodes));
    assert.notEqual(c.compiled?.root, d.compiled?.root, 'without share every Graph compiles (kgraph ui)');
    assert.ok(d.source, 'with its source');
    assert.equal(unshared.sharedHits, 0);
  });

  it('two Graphs of one spec in two namespaces both converge', async () => {
    const client = await adminClient();
    const [n1, n2] = [await graphNamespace('gc-share'), await graphNamespace('gc-share')];
    const controller = await startController([n1, n2]);
    try {
      await applyGraph(client, graph(n1, 'same', nodes));
      await applyGraph(client, graph(n2, 'same', nodes));
      await waitCondition(client, n1, 'same', 'Ready', 'True');
      await waitCondition(client, n2, 'same', 'Ready', 'True');
      for (const ns of [n1, n2])
        assert.equal(
          ((await getCm(client, ns, 'derived'))?.data as { from?: string } | undefined)?.from,
          'base',
        );
    } finally {
      await stopController(controller);
    }
  });
});

describe('a kind unknown at the first compile', () => {
  it('is found by the next compile once the API server publishes it, without a CRD event in between', async () => {
    // An RGD applied together with the RGD whose kind it uses compiles first while that kind is missing;
    // the retry comes from a timer, not from a CRD event, so the compiler itself must not keep answering
    // from the OpenAPI documents that lacked the kind (the rgd examples test hung on this in CI).
    const admin = await adminClient();
    const group = `${uniqueName('late')}.kgraph.test`;
    const spec = graph('ns-late', 'late', [
      { id: 'w', template: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: {} } },
    ]);
    const compiler = new GraphCompiler(admin);
    const first = await compiler.compile(spec);
    assert.equal(first.unknownKind, true, 'the kind does not exist yet');
    await installWidgetCRD(admin, group);
    // Published: a compiler with nothing cached finds it.
    await eventually(
      'the kind in the OpenAPI documents',
      async () => (await new GraphCompiler(admin).compile(spec)).accepted || undefined,
      30_000,
      200,
    );
    const retry = await compiler.compile(spec);
    assert.equal(retry.unknownKind, false, retry.diagnostics.map((d) => d.message).join('; '));
    assert.equal(retry.accepted, true);
  });
});
