import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControllerMetrics } from '../../../../src/controller/core/metrics.ts';
import { parseStatus, statusEqual, statusJson } from '../../../../src/controller/graph/status.ts';
import { exposition } from '../../../../src/controller/host/metricsEndpoint.ts';
import { parseAddr } from '../../../../src/controller/host/probes.ts';
import { RequestCounters } from '../../../../src/kube/index.ts';

describe('controller metrics, addresses and status', () => {
  it('renders Prometheus text with reconciles, durations, requests by verb and queue depth', async () => {
    const counters = new RequestCounters();
    counters.inc('apply');
    counters.inc('apply');
    counters.inc('get');
    const m = new ControllerMetrics(counters, { queueDepth: () => 3, graphs: () => 2, informers: () => 5 });
    m.observeReconcile('converged', 0.02);
    m.observeReconcile('waiting', 2);
    const text = await m.render();
    assert.match(text, /^kgraph_reconciles_total\{result="converged"\} 1$/m);
    assert.match(text, /^kgraph_reconcile_duration_seconds_bucket\{le="0.025"\} 1$/m);
    assert.match(text, /^kgraph_reconcile_duration_seconds_bucket\{le="\+Inf"\} 2$/m);
    assert.match(text, /^kgraph_reconcile_duration_seconds_count 2$/m);
    assert.match(text, /^kgraph_api_requests_total\{verb="apply"\} 2$/m);
    assert.match(text, /^kgraph_api_requests_total\{verb="get"\} 1$/m);
    assert.match(text, /^kgraph_workqueue_depth 3$/m);
    assert.equal(m.reconcileCount(), 2);
    assert.match(text, /^# TYPE kgraph_reconcile_duration_seconds histogram$/m);
  });

  it("exposes the process and Node.js runtime metrics beside the controller's (prom-client)", async () => {
    const m = new ControllerMetrics(new RequestCounters(), {
      queueDepth: () => 0,
      graphs: () => 0,
      informers: () => 0,
    });
    const text = await exposition([m.registry])();
    assert.match(text, /^kgraph_workqueue_depth 0$/m);
    assert.match(text, /^process_cpu_user_seconds_total \d/m);
    assert.match(text, /^process_resident_memory_bytes \d+/m);
    assert.match(text, /^nodejs_eventloop_lag_seconds \d/m);
    assert.match(text, /^nodejs_heap_size_used_bytes \d+/m);
  });

  it('parses listen addresses', () => {
    assert.deepEqual(parseAddr(':8080'), { host: '0.0.0.0', port: 8080 });
    assert.deepEqual(parseAddr('127.0.0.1:9090'), { host: '127.0.0.1', port: 9090 });
    assert.deepEqual(parseAddr('8081'), { host: '0.0.0.0', port: 8081 });
    assert.throws(() => parseAddr('host:x'));
  });

  it('round-trips the status and ignores malformed inventory entries', () => {
    const graph = {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Ready',
            message: 'm',
            observedGeneration: 2,
            lastTransitionTime: 't',
          },
        ],
        managedResources: [
          { nodeID: 'cm', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'a', uid: 'u' },
          { nodeID: 'bad', kind: 'ConfigMap' },
        ],
        contributions: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 't', subresource: '', fieldManager: 'm' },
        ],
        appliedServiceAccount: 'system:serviceaccount:ns:default',
      },
    };
    const s = parseStatus(graph);
    assert.equal(s.managedResources.length, 1);
    assert.equal(s.contributions.length, 1);
    assert.ok(statusEqual(s, parseStatus({ status: statusJson(s) })));
  });
});
