/**
 * The lower bound of the comparison with kro: a bare server-side-apply loop of the children of N instances
 * (bench/workload.ts, 5 per instance), `--in-flight` at a time, no reads and no status, on a fresh local
 * control plane per round; median of `--rounds`. converge.bench.ts runs the same loop in its own rounds
 * for same-run ratios; this one is the loop alone.
 *
 * Run: node --import tsx bench/bare-ssa.bench.ts [--instances 200] [--in-flight 4] [--rounds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { RestClient } from '../src/kube/rest.ts';
import { startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { loadAverage, median } from './support.ts';
import { bareApplyLoop, benchNamespace } from './workload.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const INSTANCES = arg('--instances', 200);
const IN_FLIGHT = arg('--in-flight', 4);
const ROUNDS = arg('--rounds', 3);

const times: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-bare-'));
  const plane = await startLocalControlPlane({ dataDir, ephemeral: true });
  const kc = new KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const admin = new RestClient(kc);
  try {
    await benchNamespace(admin, 'bare');
    const load = loadAverage();
    const t = await bareApplyLoop(admin, 'bare', INSTANCES, IN_FLIGHT);
    times.push(t);
    process.stdout.write(
      `round ${r + 1}: ${INSTANCES * 5} applies in ${(t / 1000).toFixed(2)} s (${((INSTANCES * 5 * 1000) / t).toFixed(0)}/s), load ${load}–${loadAverage()}\n`,
    );
  } finally {
    admin.close();
    await plane.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
process.stdout.write(
  `median ${(median(times) / 1000).toFixed(2)} s for ${INSTANCES * 5} objects at ${IN_FLIGHT} in flight\n`,
);
