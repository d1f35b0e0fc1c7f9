/**
 * An idle `kgraph controller` sleeps (idle CPU): with nothing to reconcile, its main thread
 * wakes a few times a second, not 100 times (prom-client's event-loop-delay sampler at its default 10 ms
 * resolution did that: 0.28 s of CPU per idle minute). Counted as the main thread's voluntary context
 * switches (each a return from a wait) from /proc, for the real binary on the shared control plane.
 * The bound is generous for a loaded shared machine and still far below the 100/s it catches.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import { adminClient, eventually } from '../../support/kube.ts';
import { applyGraph, cm, ensureCrd, graph, graphNamespace } from './support.ts';

const MAX_WAKEUPS_PER_SECOND = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Voluntary context switches of the process's main thread so far. */
function wakeups(pid: number): number {
  const m = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no voluntary_ctxt_switches in /proc/${pid}/status`);
  return Number(m[1]);
}

describe('idle controller', () => {
  let proc: ChildProcess | undefined;
  after(async () => {
    if (proc && proc.exitCode === null) {
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    }
  });
  let ns: string;
  before(async () => {
    await ensureCrd();
    ns = await graphNamespace('idle');
  });

  it('wakes its main thread far less than 100 times a second once converged', async () => {
    const kubeconfig = (await sharedControlPlane()).kubeconfigPath;
    const port = await freePort();
    proc = spawnController(kubeconfig, port, ['--no-rgds', '--namespace', ns]);
    await waitReadyz(port);
    const client = await adminClient();
    // Something to hold: one Graph with a child, converged, its watches open.
    await applyGraph(client, graph(ns, 'idle', [{ id: 'c', template: cm('idle-child', { k: 'v' }) }]));
    await eventually('the child', () =>
      client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'idle-child' }),
    );
    await sleep(3000); // the last status write and its echo
    const pid = proc.pid ?? 0;
    const w0 = wakeups(pid);
    const t0 = performance.now();
    await sleep(6000);
    const perSecond = ((wakeups(pid) - w0) * 1000) / (performance.now() - t0);
    assert.ok(
      perSecond < MAX_WAKEUPS_PER_SECOND,
      `the idle controller's main thread woke ${perSecond.toFixed(1)} times a second (bound ${MAX_WAKEUPS_PER_SECOND})`,
    );
  });
});
