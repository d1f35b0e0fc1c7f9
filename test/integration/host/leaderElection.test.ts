import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LeaderElector, microTime } from '../../../src/controller/host/leaderElection.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import { eventually, testClient, testNamespace } from '../../support/kube.ts';

let client: RestClient;
let ns: string;
before(async () => {
  client = await testClient();
  ns = await testNamespace('le');
});
after(() => client.close());

const fast = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 250 };

function candidate(name: string, identity: string, log: string[], releaseOnStop = true): LeaderElector {
  return new LeaderElector(client, {
    namespace: ns,
    name,
    identity,
    ...fast,
    releaseOnStop,
    onStartedLeading: () => log.push(`${identity} leads`),
    onStoppedLeading: () => log.push(`${identity} stops`),
  });
}

describe('leader election on a Lease', () => {
  it('formats MicroTime with six fractional digits', () => {
    assert.equal(microTime(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), '2024-01-02T03:04:05.678000Z');
  });

  it('one candidate leads; a released Lease passes to the other at once', async () => {
    const log: string[] = [];
    const a = candidate('ctrl', 'a', log);
    const b = candidate('ctrl', 'b', log);
    a.start();
    await eventually('a leads', async () => a.isLeader() || undefined, 10_000);
    b.start();
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(b.isLeader(), false);
    assert.equal(b.leader, 'a');
    const lease = await client.get({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: ns,
      name: 'ctrl',
    });
    assert.equal((lease.spec as { holderIdentity: string }).holderIdentity, 'a');
    const t0 = Date.now();
    await a.stop();
    await eventually('b leads', async () => b.isLeader() || undefined, 10_000);
    assert.ok(Date.now() - t0 < 1_500, 'no need to wait for expiry after a release');
    await b.stop();
    assert.deepEqual(log, ['a leads', 'a stops', 'b leads', 'b stops']);
    assert.ok(a.counters.get('update') > 0, 'lease renewals are counted on the elector');
  });

  it('a leader that vanishes without releasing is replaced after the lease duration', async () => {
    const log: string[] = [];
    const a = candidate('crash', 'a', log, false);
    const b = candidate('crash', 'b', log);
    a.start();
    await eventually('a leads', async () => a.isLeader() || undefined, 10_000);
    b.start();
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    await a.stop(); // no release: like a crash
    await eventually('b leads', async () => b.isLeader() || undefined, 10_000);
    const waited = Date.now() - t0;
    assert.ok(waited >= 1_000, `b waited for the lease to expire (${waited} ms)`);
    const lease = await client.get({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: ns,
      name: 'crash',
    });
    assert.equal((lease.spec as { leaseTransitions: number }).leaseTransitions, 1);
    await b.stop();
  });

  it("judges expiry by the time it observed, never by the holder's renewTime (clock skew)", async () => {
    const lease = (name: string, renewMs: number) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: ns },
      spec: {
        holderIdentity: 'skewed',
        leaseDurationSeconds: 2,
        renewTime: microTime(renewMs),
        acquireTime: microTime(renewMs),
      },
    });
    // A holder whose clock runs an hour ahead, then silent: taken once seen unchanged for the duration.
    await client.create(lease('ahead', Date.now() + 3_600_000));
    const log: string[] = [];
    const a = candidate('ahead', 'a', log);
    const t0 = Date.now();
    a.start();
    await eventually('a takes the silent Lease', async () => a.isLeader() || undefined, 10_000);
    assert.ok(Date.now() - t0 >= 1_900, `waited the lease duration (${Date.now() - t0} ms)`);
    await a.stop();
    // A holder whose clock runs an hour behind but who keeps renewing: never taken.
    const behind = await client.create(lease('behind', Date.now() - 3_600_000));
    const b = candidate('behind', 'b', log);
    b.start();
    let current = behind;
    for (let i = 0; i < 12; i++) {
      await new Promise((r) => setTimeout(r, 300));
      current = await client.update({
        ...current,
        spec: { ...(current.spec as object), renewTime: microTime(Date.now() - 3_600_000 + i) },
      });
    }
    assert.equal(b.isLeader(), false, 'a renewing holder keeps its Lease whatever its clock says');
    await b.stop();
  });
});
