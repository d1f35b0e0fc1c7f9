/**
 * A consumer cluster whose API server stops (design/planes.md §3.3.4): with the liveness probe every
 * `livenessMs` and the resync far away (as in production, where it is 5 min), its ConsumerCluster turns
 * `Connected=False`/`Unreachable` within 2 × `livenessMs` of the server being stopped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blueprint, cmT, cond, planesFixture, registration, sleep, waitFor } from './support.ts';

const LIVENESS_MS = 1_500;

describe('planes: a consumer cluster that goes away', () => {
  const p = planesFixture({
    hostIsManagement: true,
    controller: { timings: { livenessMs: LIVENESS_MS, resyncMs: 600_000 } },
    // Granted and served: the identity is verified (the serving role reads kube-system).
    blueprints: [blueprint('down', 'Down', [{ id: 'mine', template: cmT('mine') }])],
    grants: ['down'],
  });

  it(`reports Connected=False/Unreachable within 2 × livenessMs (${2 * LIVENESS_MS} ms)`, async () => {
    await waitFor(
      'consumer connected',
      () => registration(p, p.consumer),
      (o) => cond(o, 'Connected')?.status === 'True' && cond(o, 'IdentityVerified')?.status === 'True',
    );
    // Somewhere inside a probe interval, as a real outage would be.
    await sleep(Math.floor(Math.random() * LIVENESS_MS));
    const stop = p.consumer.cp.stop;
    assert.ok(stop, 'a dedicated control plane can be stopped');
    const t0 = Date.now();
    const stopped = stop();
    let seen = 0;
    const o = await waitFor(
      'Connected=False',
      () => registration(p, p.consumer),
      (x) => {
        const c = cond(x, 'Connected');
        if (c?.status === 'False' && !seen) seen = Date.now();
        return c?.status === 'False';
      },
      60_000,
    );
    const detectedMs = seen - t0;
    await stopped;
    console.log(`consumer down: Connected=False after ${detectedMs} ms (livenessMs ${LIVENESS_MS})`);
    assert.equal(cond(o, 'Connected')?.reason, 'Unreachable');
    assert.equal(cond(o, 'Ready')?.status, 'False');
    assert.ok(detectedMs <= 2 * LIVENESS_MS, `detected after ${detectedMs} ms, bound ${2 * LIVENESS_MS} ms`);
  });
});
