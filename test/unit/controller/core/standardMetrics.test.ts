/**
 * controller-runtime's and workqueue's metric names (core/standardMetrics.ts): a queue's adds, depth,
 * retries and timings, and reconciles by controller and result, in the exposition `/metrics` serves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControllerMetrics } from '../../../../src/controller/core/metrics.ts';
import { instrumentQueue, standardMetricsRegistry } from '../../../../src/controller/core/standardMetrics.ts';
import { RequestCounters, WorkQueue } from '../../../../src/kube/index.ts';

describe('standard controller metrics', () => {
  it('renders reconciles by controller and result, and the workqueue series', async () => {
    const q = new WorkQueue<string>();
    instrumentQueue('std-test', q);
    const m = new ControllerMetrics(
      new RequestCounters(),
      { queueDepth: () => 0, graphs: () => 0, informers: () => 0 },
      'std-test',
    );
    q.add('a');
    q.add('b');
    q.add('c');
    let fail = true;
    const running = q.run(async (key) => {
      await new Promise((r) => setTimeout(r, 5));
      if (key === 'c' && fail) {
        fail = false;
        m.observeReconcile('failed', 0.005);
        throw new Error('once');
      }
      m.observeReconcile(key === 'b' ? 'waiting' : 'converged', 0.005);
    }, 1);
    await new Promise((r) => setTimeout(r, 100));
    q.add('d');
    const text = await standardMetricsRegistry().metrics();
    await q.shutdown();
    await running;
    assert.match(text, /^controller_runtime_reconcile_total\{controller="std-test",result="success"\} 1$/m);
    assert.match(
      text,
      /^controller_runtime_reconcile_total\{controller="std-test",result="requeue_after"\} 1$/m,
    );
    assert.match(text, /^controller_runtime_reconcile_total\{controller="std-test",result="error"\} 1$/m);
    assert.match(text, /^controller_runtime_reconcile_errors_total\{controller="std-test"\} 1$/m);
    assert.match(text, /^controller_runtime_reconcile_time_seconds_count\{controller="std-test"\} 3$/m);
    assert.match(text, /^workqueue_adds_total\{name="std-test"\} 4$/m);
    assert.match(text, /^workqueue_retries_total\{name="std-test"\} 1$/m);
    assert.match(text, /^workqueue_depth\{name="std-test"\} [01]$/m);
    assert.match(text, /^workqueue_queue_duration_seconds_count\{name="std-test"\} [34]$/m);
    assert.match(text, /^workqueue_work_duration_seconds_count\{name="std-test"\} 3$/m);
    assert.match(text, /^# TYPE workqueue_work_duration_seconds histogram$/m);
  });
});
