import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { WorkQueue } from '../../../src/kube/queue.ts';

/** Lets pending promise callbacks run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('WorkQueue', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'] }));
  afterEach(() => mock.timers.reset());

  it('deduplicates a key added while it waits', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.depth, 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
    assert.equal(q.depth, 0);
  });

  it('re-queues a key added while it is processed, only after done()', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    const k = await q.get();
    assert.equal(k, 'a');
    q.add('a');
    q.add('a');
    assert.equal(q.depth, 0, 'not handed out twice concurrently');
    q.done('a');
    assert.equal(q.depth, 1);
    assert.equal(await q.get(), 'a');
    q.done('a');
    assert.equal(q.depth, 0);
  });

  it('backs off per key from 1 s doubling to 5 min, and forget resets it', async () => {
    const q = new WorkQueue<string>();
    const delays: number[] = [];
    for (let i = 0; i < 11; i++) delays.push(q.addRateLimited('a'));
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000]);
    assert.equal(q.numRequeues('a'), 11);
    assert.equal(q.numRequeues('b'), 0);
    q.forget('a');
    assert.equal(q.numRequeues('a'), 0);
    assert.equal(q.addRateLimited('a'), 1000);
  });

  it('delivers a rate-limited key only when its delay has passed', async () => {
    const q = new WorkQueue<string>();
    q.addRateLimited('a'); // 1 s
    q.addRateLimited('a'); // 2 s, but the earlier pending time wins
    assert.equal(q.depth, 0);
    mock.timers.tick(999);
    assert.equal(q.depth, 0);
    mock.timers.tick(1);
    assert.equal(q.depth, 1);
    assert.equal(await q.get(), 'a');
    q.done('a');
    mock.timers.tick(10_000);
    assert.equal(q.depth, 0, 'the later duplicate was folded into the earlier one');
  });

  it('addAfter keeps the earliest time for a key', () => {
    const q = new WorkQueue<string>();
    q.addAfter('a', 5000);
    q.addAfter('a', 1000);
    q.addAfter('a', 3000);
    mock.timers.tick(1000);
    assert.equal(q.depth, 1);
    mock.timers.tick(5000);
    assert.equal(q.depth, 1);
    assert.equal(q.stats().delayed, 0);
  });

  it('runs N workers, never the same key twice at once, retrying failures with backoff', async () => {
    const q = new WorkQueue<string>();
    let active = 0;
    let maxActive = 0;
    const activeKeys = new Set<string>();
    const calls: string[] = [];
    const releases: (() => void)[] = [];
    let failB = true;
    const errors: [string, number][] = [];
    const running = q.run(
      async (key) => {
        assert.ok(!activeKeys.has(key), `${key} processed concurrently`);
        activeKeys.add(key);
        active += 1;
        maxActive = Math.max(maxActive, active);
        calls.push(key);
        await new Promise<void>((r) => releases.push(r));
        active -= 1;
        activeKeys.delete(key);
        if (key === 'b' && failB) {
          failB = false;
          throw new Error('boom');
        }
      },
      2,
      (key, _e, delay) => errors.push([key, delay]),
    );
    q.add('a');
    q.add('b');
    q.add('c');
    await flush();
    assert.equal(maxActive, 2, 'two workers');
    assert.deepEqual(calls, ['a', 'b']);
    q.add('a'); // while a is processed: re-queued after done
    for (const r of releases.splice(0)) r();
    await flush();
    assert.deepEqual(errors, [['b', 1000]]);
    assert.deepEqual(calls, ['a', 'b', 'c', 'a']);
    for (const r of releases.splice(0)) r();
    await flush();
    assert.equal(q.numRequeues('b'), 1);
    mock.timers.tick(1000);
    await flush();
    assert.deepEqual(calls, ['a', 'b', 'c', 'a', 'b']);
    for (const r of releases.splice(0)) r();
    await flush();
    assert.equal(q.numRequeues('b'), 0, 'forgotten after success');
    await q.shutdown();
    await running;
  });

  it('reports depth to a gauge and ignores adds after shutdown', async () => {
    const depths: number[] = [];
    const q = new WorkQueue<string>({ onDepth: (d) => depths.push(d) });
    q.add('a');
    q.add('b');
    await q.get();
    assert.deepEqual(depths, [1, 2, 1]);
    const pending = q.get(); // 'b'
    assert.equal(await pending, 'b');
    const waiting = q.get();
    const stopped = q.shutdown();
    assert.equal(await waiting, undefined, 'idle workers are woken with undefined');
    q.add('c');
    assert.equal(q.depth, 0);
    q.done('a');
    q.done('b');
    await stopped; // resolves once in-flight keys are done
    assert.equal(await q.get(), undefined);
  });

  it('lets a handler ask for a periodic re-check', async () => {
    const q = new WorkQueue<string>();
    const calls: number[] = [];
    const running = q.run(async () => {
      calls.push(Date.now());
      return { requeueAfterMs: 30_000 };
    });
    q.add('a');
    await flush();
    assert.equal(calls.length, 1);
    mock.timers.tick(29_999);
    await flush();
    assert.equal(calls.length, 1);
    mock.timers.tick(1);
    await flush();
    assert.equal(calls.length, 2);
    assert.equal(q.numRequeues('a'), 0);
    await q.shutdown();
    await running;
  });
});
