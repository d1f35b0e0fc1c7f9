// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * One trace across the controller and the API server (docs/observability.md): kube-apiserver traces into
 * kube-testenv's OTLP receiver, kgraph exports its spans to the same receiver, and an instance edit
 * produces one trace whose spans cover the pass, the apply of every changed child, each apply's request
 * and the API server's own span of that request (parented on the `traceparent` kgraph sent).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import { RestClient as Client } from '../../../src/kube/rest.ts';
import { startTracing, stopTracing } from '../../../src/kube/tracing/tracing.ts';
import { dedicatedControlPlane, type TestControlPlane, uniqueName } from '../../support/controlPlane.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  eventually,
  instance,
  rgd,
  startRgdController,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
  attributes?: Record<string, unknown>;
  links?: string[];
}

function spans(file: string): ReceivedSpan[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ReceivedSpan);
}

describe('a trace joining the controller and the API server', () => {
  let plane: TestControlPlane;
  let client: RestClient;
  let controller: RgdController;
  let ns: string;
  const suite = uniqueName('obs-trace');
  const f = { suite, group: `${suite}.kgraph.test`, ns: '' };

  before(async () => {
    plane = await dedicatedControlPlane({ workloads: false, traceReceiver: true });
    assert.ok(plane.otlp, 'kube-testenv runs the trace receiver');
    await startTracing({ endpoint: `http://${plane.otlp.address}`, serviceName: 'kgraph-test' });
    client = new Client(plane.kc);
    ns = uniqueName('obs-trace');
    f.ns = ns;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    controller = await startRgdController(suite, ns, { plane });
  });
  after(async () => {
    await stopRgdController(controller);
    await stopTracing();
    client?.close();
    await plane?.stop?.();
  });

  it('an instance edit is one trace: the pass, each child apply, its request and the server side', async () => {
    await applyRgd(
      client,
      rgd(f, 'tr', { kind: 'TrApp', spec: { v: 'string | default="1"' } }, [
        { id: 'one', template: cm('${schema.metadata.name}-one', { v: '${schema.spec.v}' }) },
        { id: 'two', template: cm('${schema.metadata.name}-two', { v: '${schema.spec.v}' }) },
      ]),
    );
    await waitRgd(client, 'tr', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TrApp', 't', {}));
    await waitState(client, f, 'TrApp', 't', 'ACTIVE');
    await controller.idle();
    await applyInstance(client, instance(f, 'TrApp', 't', { v: '2' }));
    await waitState(client, f, 'TrApp', 't', 'ACTIVE', (o) => o.metadata.generation === 2);
    await controller.idle();
    const file = plane.otlp?.spansFile ?? '';
    // The edit's pass: the one that updated both children.
    const pass = await eventually(
      'the edit pass span',
      async () =>
        spans(file).find(
          (s) =>
            s.service === 'kgraph-test' &&
            s.name === 'reconcile' &&
            s.attributes?.['k8s.object.name'] === 't' &&
            s.attributes?.['kgraph.updated'] === 2,
        ),
      30_000,
      500,
    );
    assert.equal(pass.attributes?.['kgraph.result'], 'converged');
    assert.equal(typeof pass.attributes?.['kgraph.queue_wait_ms'], 'number');
    const trace = await eventually(
      'server spans of the edit',
      async () => {
        const t = spans(file).filter((s) => s.traceId === pass.traceId);
        return t.some((s) => s.service === 'apiserver') ? t : undefined;
      },
      30_000,
      500,
    );
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const applies = trace.filter((s) => s.name === 'apply');
    assert.deepEqual(
      applies.map((s) => s.attributes?.['kgraph.node']).sort(),
      ['one', 'two'],
      'an apply span per changed child',
    );
    for (const a of applies) {
      // apply → converge → reconcile
      let up = byId.get(a.parentSpanId ?? '');
      while (up && up.name !== 'reconcile') up = byId.get(up.parentSpanId ?? '');
      assert.equal(up?.spanId, pass.spanId, 'the apply is inside the pass');
      const request = trace.find((s) => s.parentSpanId === a.spanId && s.name.startsWith('PATCH '));
      assert.ok(request, `the apply's PATCH request of ${a.attributes?.['kgraph.node']}`);
      const server = trace.filter((s) => s.service === 'apiserver' && s.parentSpanId === request.spanId);
      assert.ok(server.length > 0, `the API server's span of ${request.name}`);
    }
    const names = new Set(trace.map((s) => s.name));
    for (const n of ['reconcile', 'converge', 'evaluate', 'apply', 'prune', 'status'])
      assert.ok(names.has(n), `a ${n} span in ${[...names].join(', ')}`);
    // The trace for docs/observability.md (test-results/ is not committed).
    mkdirSync('test-results', { recursive: true });
    writeFileSync('test-results/observability-trace.json', `${JSON.stringify(trace, null, 2)}\n`);
    console.log(
      `trace ${pass.traceId}: ${trace.length} spans (${trace.filter((s) => s.service === 'apiserver').length} from the API server)`,
    );
  });

  it("a nested instance written by a pass reconciles in that pass's trace", async () => {
    await applyRgd(
      client,
      rgd(f, 'inner', { kind: 'TrInner', spec: { v: 'string | default="1"' } }, [
        { id: 'c', template: cm('${schema.metadata.name}-c', { v: '${schema.spec.v}' }) },
      ]),
    );
    await waitRgd(client, 'inner', 'Ready', 'True');
    await applyRgd(
      client,
      rgd(f, 'outer', { kind: 'TrOuter', spec: { v: 'string | default="1"' } }, [
        {
          id: 'nested',
          template: {
            apiVersion: `${f.group}/v1alpha1`,
            kind: 'TrInner',
            metadata: { name: '${schema.metadata.name}-inner' },
            spec: { v: '${schema.spec.v}' },
          },
        },
      ]),
    );
    await waitRgd(client, 'outer', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TrOuter', 'o', {}));
    await waitState(client, f, 'TrInner', 'o-inner', 'ACTIVE');
    await controller.idle();
    await applyInstance(client, instance(f, 'TrOuter', 'o', { v: '2' }));
    await waitState(client, f, 'TrInner', 'o-inner', 'ACTIVE', (x) => x.metadata.generation === 2);
    await controller.idle();
    const file = plane.otlp?.spansFile ?? '';
    const joined = await eventually(
      "the inner pass in the outer pass's trace",
      async () => {
        const all = spans(file);
        const outer = all.find(
          (x) =>
            x.name === 'reconcile' &&
            x.attributes?.['k8s.object.name'] === 'o' &&
            x.attributes?.['kgraph.updated'] === 1,
        );
        if (!outer) return undefined;
        const inner = all.find(
          (x) =>
            x.name === 'reconcile' &&
            x.traceId === outer.traceId &&
            x.attributes?.['k8s.object.name'] === 'o-inner' &&
            x.attributes?.['kgraph.updated'] === 1,
        );
        return inner ? { outer, inner } : undefined;
      },
      30_000,
      500,
    );
    // Its parent is the outer pass's apply of the nested instance.
    const parent = spans(file).find((x) => x.spanId === joined.inner.parentSpanId);
    assert.equal(parent?.name, 'apply');
    assert.equal(parent?.attributes?.['kgraph.node'], 'nested');
  });
});
