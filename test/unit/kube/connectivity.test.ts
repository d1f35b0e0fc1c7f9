import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { Connectivity, isConnectionError } from '../../../src/kube/connectivity.ts';
import { ApiError } from '../../../src/kube/errors.ts';
import { WorkQueue } from '../../../src/kube/queue.ts';

const refused = () => new ApiError({ code: 0, reason: 'NetworkError', message: 'connect ECONNREFUSED' });

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe('Connectivity', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'] }));
  afterEach(() => mock.timers.reset());

  it('counts only answerless requests as connection errors', () => {
    assert.ok(isConnectionError(refused()));
    assert.ok(isConnectionError(new ApiError({ code: 0, reason: 'Timeout', message: 'no answer' })));
    assert.ok(isConnectionError(new Error('apply failed', { cause: refused() })));
    assert.ok(!isConnectionError(new ApiError({ code: 0, reason: 'Aborted', message: 'aborted' })));
    assert.ok(!isConnectionError(new ApiError({ code: 503, reason: 'ServiceUnavailable', message: 'x' })));
  });

  it('is disconnected from a refused request until a non-5xx answer, and probes meanwhile', async () => {
    let probes = 0;
    const c: Connectivity = new Connectivity({
      probe: async () => {
        probes += 1;
        c.noteAnswer(probes < 3 ? 503 : 200); // not ready, not ready, ready
      },
    });
    let reconnects = 0;
    c.onReconnect(() => reconnects++);
    c.noteFailure(new ApiError({ code: 404, reason: 'NotFound', message: 'x' }));
    assert.ok(c.connected);
    c.noteFailure(refused());
    assert.ok(!c.connected);
    for (let i = 0; i < 3; i++) {
      mock.timers.tick(1_000);
      await flush();
    }
    assert.equal(probes, 3);
    assert.ok(c.connected);
    assert.equal(reconnects, 1);
    mock.timers.tick(5_000);
    await flush();
    assert.equal(probes, 3, 'no probe once connected');
  });

  it('a queue retries at once, backoff reset, the keys that failed while disconnected', async () => {
    const c = new Connectivity({ probe: async () => undefined });
    const q = new WorkQueue<string>();
    q.retryOnReconnect(c);
    let up = false;
    const seen: string[] = [];
    const running = q.run(async (k) => {
      seen.push(k);
      if (!up) {
        const e = refused();
        c.noteFailure(e);
        throw e;
      }
    });
    q.add('a');
    await flush();
    // 1 s, 2 s, 4 s, 8 s, 16 s: five more failures in 31 s, then a 32 s wait.
    for (let t = 0; t < 31; t++) {
      mock.timers.tick(1_000);
      await flush();
    }
    assert.equal(seen.length, 6);
    assert.equal(q.numRequeues('a'), 6);
    up = true;
    c.noteAnswer(200);
    await flush();
    assert.equal(seen.length, 7, 'retried on the reconnect, not 32 s later');
    assert.equal(q.numRequeues('a'), 0);
    assert.equal(q.stats().reconnectRetries, 1);
    await q.shutdown();
    await running;
  });
});
