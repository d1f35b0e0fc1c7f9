// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Leader election on a real Lease: of two candidates one leads; when it stops renewing, the other
 * takes over once the Lease expires.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { LeaderElector } from '../../../src/controller/host/leaderElection.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import { adminClient, eventually, testNamespace } from '../../support/kube.ts';
import { applyGraph, cm, ensureCrd, getCm, graph, graphNamespace, waitCondition } from './support.ts';

describe('leader election', () => {
  let client: RestClient;
  let ns: string;
  const electors: LeaderElector[] = [];

  before(async () => {
    client = await adminClient();
    ns = await testNamespace('gc-lease');
  });
  after(() => {
    for (const e of electors) void e.stop();
  });

  it('one candidate leads; the other takes over after the first stops renewing', async () => {
    const started: string[] = [];
    const stopped: string[] = [];
    const make = (identity: string) => {
      const e = new LeaderElector(client, {
        namespace: ns,
        name: 'kgraph-controller',
        identity,
        leaseDurationMs: 2_000,
        // Stopping without releasing: the other candidate must wait for the Lease to expire.
        releaseOnStop: false,
        renewDeadlineMs: 1_500,
        retryPeriodMs: 200,
        onStartedLeading: () => {
          started.push(identity);
        },
        onStoppedLeading: () => {
          stopped.push(identity);
        },
      });
      electors.push(e);
      return e;
    };
    const a = make('a');
    a.start();
    await eventually('a leads', async () => (a.isLeader() ? true : undefined));
    const b = make('b');
    b.start();
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(b.isLeader(), false, 'b waits while a renews');
    const lease = await client.get({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: ns,
      name: 'kgraph-controller',
    });
    assert.equal((lease.spec as { holderIdentity: string }).holderIdentity, 'a');
    await a.stop();
    await eventually('b takes over', async () => (b.isLeader() ? true : undefined), 15_000);
    const after2 = await client.get({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: ns,
      name: 'kgraph-controller',
    });
    assert.equal((after2.spec as { holderIdentity: string }).holderIdentity, 'b');
    assert.equal((after2.spec as { leaseTransitions: number }).leaseTransitions, 1);
    assert.deepEqual(started, ['a', 'b']);
  });

  it('`kgraph controller --leader-elect`: one of two processes holds the Lease; the standby takes over and reconciles when it is killed', async () => {
    await ensureCrd();
    const cp = await sharedControlPlane();
    const gns = await graphNamespace('gc-ha');
    const procs = new Map<string, ChildProcess>();
    const start = async (): Promise<void> => {
      const port = await freePort();
      const p = spawnController(cp.kubeconfigPath, port, [
        '--no-rgds',
        '--namespace',
        gns,
        '--leader-elect',
        '--leader-election-namespace',
        gns,
        '--lease-duration',
        '3',
      ]);
      procs.set(`${p.pid}`, p);
      await waitReadyz(port);
    };
    const holder = async (): Promise<string | undefined> => {
      const lease = await client.getOrUndefined({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        namespace: gns,
        name: 'kgraph-controller',
      });
      return (lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
    };
    try {
      await Promise.all([start(), start()]);
      const first = await eventually('a leader', holder, 30_000);
      const leaderPid = first.split('_').pop() ?? '';
      assert.ok(procs.has(leaderPid), `holder ${first} is one of the processes`);
      await applyGraph(client, graph(gns, 'ha', [{ id: 'cm', template: cm('ha-cm', { v: '1' }) }]));
      await waitCondition(client, gns, 'ha', 'Ready', 'True');

      const leader = procs.get(leaderPid);
      leader?.kill('SIGKILL');
      if (leader) await once(leader, 'exit');
      procs.delete(leaderPid);
      await applyGraph(client, graph(gns, 'ha', [{ id: 'cm', template: cm('ha-cm', { v: '2' }) }]));
      await waitCondition(client, gns, 'ha', 'Ready', 'True', undefined, 60_000);
      assert.deepEqual((await getCm(client, gns, 'ha-cm'))?.data, { v: '2' });
      const second = await holder();
      assert.ok(
        second && second !== first && procs.has(second.split('_').pop() ?? ''),
        `new holder ${second}`,
      );
    } finally {
      for (const p of procs.values()) p.kill('SIGKILL');
    }
  });
});
