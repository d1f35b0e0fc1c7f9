/**
 * The informer's state machine with a scripted ListerWatcher: relist and cache
 * diff on 410 Gone, resume from bookmarks, backoff and re-watch after a network
 * error. (List/watch against the real server: test/integration/kube/informer.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, apiErrorFromStatus } from '../../../src/kube/errors.ts';
import { Informer, type ListerWatcher } from '../../../src/kube/informer.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import type { WatchEvent } from '../../../src/kube/watch.ts';

function cm(name: string, rv: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv } };
}

type WatchStep = (onEvent: (e: WatchEvent) => void, signal: AbortSignal) => Promise<void>;

function scripted(lists: { items: KubeObject[]; resourceVersion: string }[], watches: WatchStep[]) {
  const calls: string[] = [];
  const lw: ListerWatcher = {
    async list() {
      calls.push('list');
      const next = lists.shift();
      if (!next) throw new Error('no more lists scripted');
      return next;
    },
    watch(rv, signal, onEvent) {
      calls.push(`watch@${rv}`);
      const step = watches.shift();
      if (!step)
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      return step(onEvent, signal);
    },
  };
  return { lw, calls };
}

const noClient = {} as RestClient;

describe('Informer state machine', () => {
  it('relists on a 410 ERROR event, diffs the cache, and resumes from bookmarks', async () => {
    const { lw, calls } = scripted(
      [
        { items: [cm('a', '1'), cm('b', '2')], resourceVersion: '10' },
        { items: [cm('a', '11'), cm('c', '13')], resourceVersion: '13' },
      ],
      [
        async (on) => {
          on({ type: 'MODIFIED', object: cm('a', '11') });
          on({ type: 'BOOKMARK', object: cm('', '12') });
          throw apiErrorFromStatus({
            kind: 'Status',
            code: 410,
            reason: 'Expired',
            message: 'too old resource version',
          });
        },
        async (on) => {
          on({ type: 'BOOKMARK', object: cm('', '20') });
          // the server ends the watch (timeoutSeconds): resume from the bookmark
        },
      ],
    );
    const events: string[] = [];
    const errors: unknown[] = [];
    const inf = new Informer(noClient, {
      target: { apiVersion: 'v1', plural: 'configmaps', namespace: 'ns' },
      listerWatcher: lw,
      backoff: { initialMs: 1, maxMs: 2, jitter: 0 },
      onError: (e) => errors.push(e),
    });
    inf.addHandlers({
      add: (o) => events.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`),
      update: (a, b) =>
        events.push(`update ${b.metadata.name} ${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`),
      delete: (o) => events.push(`delete ${o.metadata.name}`),
    });
    inf.start();
    await inf.waitForSync(1000);
    const deadline = Date.now() + 2000;
    while (calls.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await inf.stop();

    assert.deepEqual(calls, ['list', 'watch@10', 'list', 'watch@13', 'watch@20']);
    assert.deepEqual(events, ['add a@1', 'add b@2', 'update a 1->11', 'add c@13', 'delete b']);
    assert.deepEqual(inf.keys().sort(), ['ns/a', 'ns/c']);
    assert.equal(inf.stats.relists, 1);
    assert.equal(inf.stats.bookmarks, 2);
    assert.equal(inf.resourceVersion, '20');
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof ApiError && errors[0].code === 410);
  });

  it('backs off and re-watches from the same resourceVersion after a network error; relists after repeated ones', async () => {
    const netErr = (): Promise<void> =>
      Promise.reject(new ApiError({ code: 0, reason: 'NetworkError', message: 'ECONNRESET' }));
    const { lw, calls } = scripted(
      [
        { items: [cm('a', '1')], resourceVersion: '5' },
        { items: [cm('a', '1')], resourceVersion: '6' },
      ],
      [netErr, netErr, netErr, netErr],
    );
    const inf = new Informer(noClient, {
      target: { apiVersion: 'v1', plural: 'configmaps', namespace: 'ns' },
      listerWatcher: lw,
      backoff: { initialMs: 1, maxMs: 2, jitter: 0 },
    });
    const events: string[] = [];
    inf.addHandlers({
      add: (o) => events.push(`add ${o.metadata.name}`),
      update: () => events.push('update'),
    });
    inf.start();
    const deadline = Date.now() + 2000;
    while (calls.length < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await inf.stop();
    assert.deepEqual(calls, ['list', 'watch@5', 'watch@5', 'watch@5', 'watch@5', 'list', 'watch@6']);
    assert.deepEqual(events, ['add a'], 'an unchanged object is not re-announced by the relist');
    assert.equal(inf.stats.errors, 4);
  });

  it('stops promptly while waiting on a watch, and a handler that throws does not break the loop', async () => {
    const { lw } = scripted([{ items: [cm('a', '1')], resourceVersion: '1' }], []);
    const errors: unknown[] = [];
    const inf = new Informer(noClient, {
      target: { apiVersion: 'v1', plural: 'configmaps' },
      listerWatcher: lw,
      onError: (e) => errors.push(e),
    });
    inf.addHandlers({
      add: () => {
        throw new Error('handler bug');
      },
    });
    inf.start();
    await inf.waitForSync(1000);
    const t0 = Date.now();
    await inf.stop();
    assert.ok(Date.now() - t0 < 500);
    assert.equal(errors.length, 1);
    assert.equal(inf.size, 1);
    assert.deepEqual(
      inf.list('ns').map((o) => o.metadata.name),
      ['a'],
    );
    assert.deepEqual(inf.list('other'), []);
  });

  it('waitForSync rejects when the informer stops before syncing', async () => {
    const lw: ListerWatcher = {
      list: (signal) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        ),
      watch: () => Promise.resolve(),
    };
    const inf = new Informer(noClient, {
      target: { apiVersion: 'v1', plural: 'configmaps' },
      listerWatcher: lw,
    });
    inf.start();
    const waiting = inf.waitForSync(10_000);
    await inf.stop();
    await assert.rejects(waiting, /stopped before it synced/);
    assert.equal(inf.hasSynced(), false);
  });
  it('retryNow cuts a pending error backoff short', async () => {
    let lists = 0;
    const lw: ListerWatcher = {
      list: async () => {
        lists += 1;
        if (lists === 1) throw new Error('kind not served yet');
        return { items: [], resourceVersion: '1' };
      },
      watch: (_rv, signal) =>
        new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
    };
    const inf = new Informer(noClient, {
      target: { apiVersion: 'v1', plural: 'configmaps' },
      listerWatcher: lw,
      backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 },
    });
    inf.start();
    while (lists < 1) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(inf.hasSynced(), false);
    const t0 = Date.now();
    inf.retryNow();
    await inf.waitForSync(2_000);
    assert.ok(Date.now() - t0 < 1_000);
    await inf.stop();
  });
  it('does not spin on watches that end at once without events', async () => {
    let watches = 0;
    const lw: ListerWatcher = {
      list: async () => ({ items: [], resourceVersion: '1' }),
      watch: async () => {
        watches += 1;
      },
    };
    const inf = new Informer(noClient, {
      target: { apiVersion: 'v1', plural: 'configmaps' },
      listerWatcher: lw,
      backoff: { initialMs: 100, maxMs: 100, jitter: 0 },
    });
    inf.start();
    await new Promise((r) => setTimeout(r, 350));
    await inf.stop();
    assert.ok(watches >= 2 && watches <= 5, `${watches} watches in 350 ms`);
  });
});
