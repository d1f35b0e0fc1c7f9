/**
 * Runs node:test over the given files. When any integration test is among them,
 * one control plane is started for the whole run and handed to the tests through
 * environment variables; its log is printed when the run fails. It runs the
 * garbage-collector and namespace controllers and, unless KGRAPH_TEST_WORKLOADS=0,
 * workloads: the workload controllers, kube-scheduler and KWOK-simulated nodes
 * (3 nodes, 2 zones). Files that need another shape start their own plane
 * (test/support/controlPlane.ts: dedicatedControlPlane, workloadControlPlane).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalControlPlane } from '../../src/localplane/localControlPlane.ts';

const files = process.argv.slice(2);
const needsCluster = files.some((f) => f.includes('test/integration/'));

let stop: (() => Promise<void>) | undefined;
// A plane started outside this runner may hand its log in too, to be shown on failure.
let logFile: string | undefined = process.env.KGRAPH_TEST_LOG;
const env: NodeJS.ProcessEnv = { ...process.env };
// Tests run the CLI (bin/kgraph.js) from the sources, so they need no build (and never a stale one).
env.KGRAPH_SOURCES ??= '1';

if (needsCluster && !process.env.KGRAPH_TEST_KUBECONFIG) {
  const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-testenv-'));
  const started = Date.now();
  const workloads = process.env.KGRAPH_TEST_WORKLOADS !== '0';
  const plane = await startLocalControlPlane({
    dataDir,
    ephemeral: true,
    withControllers: true,
    withWorkloads: workloads,
  });
  process.stderr.write(
    `control plane ready at ${plane.server} in ${Date.now() - started} ms` +
      `${workloads ? ` (workloads, nodes ${(plane.nodes ?? []).join(', ')})` : ' (no workloads)'}\n`,
  );
  env.KGRAPH_TEST_KUBECONFIG = plane.kubeconfig;
  env.KGRAPH_TEST_WORKLOADS = workloads ? '1' : '0';
  env.KGRAPH_TEST_NODES = (plane.nodes ?? []).join(',');
  env.KGRAPH_TEST_SERVER = plane.server;
  env.KGRAPH_TEST_LOG = plane.logFile;
  logFile = plane.logFile;
  stop = async () => {
    await plane.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}

// stdout is piped to keep the summary; the reporter a terminal would get stays the same.
const reporter = process.stdout.isTTY ? ['--test-reporter=spec'] : [];
const child = spawn(process.execPath, ['--import', 'tsx', '--test', ...reporter, ...files], {
  stdio: ['inherit', 'pipe', 'inherit'],
  env,
});
const summary = /^\s*(?:#|ℹ) (?:tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /;
const summaryLines: string[] = [];
let partial = '';
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  const lines = (partial + chunk.toString('utf8')).split('\n');
  partial = lines.pop() ?? '';
  for (const l of lines) if (summary.test(l)) summaryLines.push(l);
});
const code: number = await new Promise((res) => child.on('close', (c, sig) => res(c ?? (sig ? 1 : 0))));

if (code !== 0 && logFile) {
  const lines = readFileSync(logFile, 'utf8').split('\n');
  process.stdout.write(`\n--- last 60 lines of the control-plane log (${logFile}) ---\n`);
  process.stdout.write(lines.slice(-60).join('\n') + '\n');
  // The summary last, so the end of `npm test` says how the run went.
  process.stdout.write(`\n--- test summary ---\n${summaryLines.join('\n')}\n`);
}
if (stop) await stop();
process.exit(code);
