/**
 * `kgraph up` in steps: start (or reuse) the local control plane, install the CRDs, start the controller
 * (in this process for the first convergence), the ui, apply the examples, wait with progress, report, and
 * hand the controller over to a background process unless `--foreground` keeps it here until Ctrl-C.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import pino from 'pino';
import { waitForCrd } from '../../controller/core/crdReady.ts';
import { controllerClient } from '../../controller/core/writeDefaults.ts';
import { installGraphCrd } from '../../controller/graph/crd.ts';
import { Manager } from '../../controller/host/manager.ts';
import { passesOf } from '../../controller/host/observe.ts';
import { installRgdCrd } from '../../controller/rgd/crd.ts';
import { KgraphError } from '../../diag/diagnostic.ts';
import { connect } from '../../kube/connect.ts';
import type { RestClient } from '../../kube/rest.ts';
import type { KubeObject } from '../../kube/types.ts';
import { devClusterUp } from '../../localplane/devCluster.ts';
import type { UiServer } from '../../ui/server.ts';
import type { UiSource } from '../../ui/source.ts';
import { DEFAULT_UI_ADDR, liveUiSource, serveUi } from '../commands/ui.ts';
import { parseDuration } from '../duration.ts';
import {
  type PidFile,
  pidFilePath,
  runningController,
  startDetachedController,
} from './controllerProcess.ts';
import { loadDocuments, planDocuments, type UpPlan } from './documents.ts';
import { CLI, FIELD_MANAGER, type UpCliOptions } from './options.ts';
import { docName, formatReport } from './report.ts';
import { applyRgdExamples, waitForInstances } from './rgd.ts';
import { runningUi, startDetachedUi } from './ui.ts';
import { readGraphs, waitWithProgress } from './wait.ts';

async function applyPlan(client: RestClient, plan: UpPlan, timeoutMs: number, say: (l: string) => void) {
  const rel = (f: string): string => relative(process.cwd(), f) || f;
  for (const d of plan.crds) {
    await client.apply(d.object, { fieldManager: FIELD_MANAGER, force: true });
    await waitForCrd(client, d.object.metadata.name ?? '', timeoutMs);
    say(`applied  ${docName(d.object)} (${rel(d.file)})`);
  }
  for (const d of [...plan.objects, ...plan.graphs]) {
    await client.apply(d.object, { fieldManager: FIELD_MANAGER, force: true });
    say(`applied  ${docName(d.object)} (${rel(d.file)})`);
  }
  for (const s of plan.skipped) say(`skipped  ${docName(s.doc.object)}: ${s.reason}`);
}

function waitForSignal(): Promise<string> {
  return new Promise((res) => {
    process.once('SIGINT', () => res('SIGINT'));
    process.once('SIGTERM', () => res('SIGTERM'));
  });
}

/** Who runs the controller during and after `up`. */
type ControllerMode = 'in-process' | 'detached' | 'existing' | 'none';

/** One `kgraph up`: what it was asked, where it runs, and what it started (stopped again by `finish`). */
interface UpRun {
  opts: UpCliOptions;
  out: (s: string) => void;
  timeoutMs: number;
  dataDir: string;
  logFile: string;
  kubeconfig: string;
  client: RestClient;
  mode: ControllerMode;
  manager: Manager | undefined;
  ownsPidFile: boolean;
  ui: { source: UiSource; server: UiServer } | undefined;
}

export async function runUp(opts: UpCliOptions): Promise<number> {
  const out = (s: string): void => {
    process.stdout.write(`${s}\n`);
  };
  const timeoutMs = parseDuration(opts.timeout, '--timeout');
  const dataDir = resolve(opts.dataDir);
  const plan = loadPlan(opts);

  out(`starting the local control plane (data: ${dataDir})…`);
  const { ready, reused } = await devClusterUp(dataDir, (l) => process.stderr.write(`${l}\n`));
  out(`${reused ? 'reusing the control plane' : 'control plane started'} at ${ready.server}`);

  const run: UpRun = {
    opts,
    out,
    timeoutMs,
    dataDir,
    logFile: join(dataDir, 'controller.log'),
    kubeconfig: ready.kubeconfig,
    client: connect(ready.kubeconfig),
    mode: 'none',
    manager: undefined,
    ownsPidFile: false,
    ui: undefined,
  };
  try {
    await installCrds(run);
    await startController(run);
    await startUi(run);
    await applyPlan(run.client, plan, timeoutMs, (l) => out(l));
    const graphs = plan.graphs.map((d) => d.object);
    const rgdsServed = await applyRgdExamples(
      run.client,
      plan.rgds,
      plan.instances,
      run.mode !== 'none',
      timeoutMs,
      out,
    );
    if (run.mode === 'none') return await reportUnreconciled(run, graphs);
    return await converge(run, plan, graphs, rgdsServed);
  } finally {
    await finish(run);
  }
}

/** The documents under the four directories, sorted; at least one Graph is required. */
function loadPlan(opts: UpCliOptions): UpPlan {
  const docs = [
    ...loadDocuments(resolve(opts.objects)),
    ...loadDocuments(resolve(opts.examples)),
    ...loadDocuments(resolve(opts.rgds)),
    ...loadDocuments(resolve(opts.instances)),
  ];
  const plan = planDocuments(docs);
  if (plan.graphs.length === 0)
    throw new KgraphError('KG6082', `no Graph found under ${opts.examples} (or ${opts.objects})`);
  return plan;
}

async function installCrds(run: UpRun): Promise<void> {
  const crd = await installGraphCrd(run.client, { timeoutMs: run.timeoutMs });
  run.out(`installed ${docName(crd)}`);
  const rgdCrd = await installRgdCrd(run.client, { timeoutMs: run.timeoutMs });
  run.out(`installed ${docName(rgdCrd)}`);
}

/** Chooses who runs the controller and, unless one of an earlier `up` runs, starts it in this process. */
async function startController(run: UpRun): Promise<void> {
  const existing = runningController(run.dataDir);
  if (!run.opts.controller) run.mode = 'none';
  else if (existing) {
    run.mode = 'existing';
    run.out(`a controller started by an earlier \`kgraph up\` is running (pid ${existing.pid}); reusing it`);
  } else run.mode = run.opts.foreground ? 'in-process' : 'detached';
  if (run.mode !== 'in-process' && run.mode !== 'detached') return;
  // Detached too, the first convergence runs under an in-process manager, whose queues tell
  // exactly when everything was reconciled; the background process takes over after.
  run.manager = await Manager.create({
    client: controllerClient(connect(run.kubeconfig)),
    installCrds: false,
    graphs: {},
    rgds: {},
    log: pino(
      { name: 'kgraph-controller', level: 'info' },
      pino.destination({ dest: run.logFile, sync: true }),
    ),
  });
  await run.manager.start();
  writeFileSync(
    pidFilePath(run.dataDir),
    JSON.stringify({ pid: process.pid, mode: 'foreground' } satisfies PidFile),
  );
  run.ownsPidFile = true;
  run.out(`controller running in this process (logs: ${run.logFile})`);
}

/** The `kgraph ui` page: in this process beside a foreground controller, else a background process. */
async function startUi(run: UpRun): Promise<void> {
  const { opts, mode, out } = run;
  if (opts.ui && mode === 'in-process') {
    const source = liveUiSource({ kubeconfig: run.kubeconfig });
    // The controller runs in this process: the timeline reads its history directly.
    const manager = run.manager;
    const history = manager
      ? async (q: Parameters<typeof passesOf>[1]) => passesOf(manager.observe, q)
      : undefined;
    run.ui = {
      source,
      server: await serveUi(source, opts.uiAddr, opts.uiAddr === DEFAULT_UI_ADDR, history),
    };
    out(`ui: ${run.ui.server.url}  (the Graphs' DAGs, live)`);
  } else if (opts.ui && mode !== 'none') {
    // `up` returns: the page runs in its own background process, as the controller does; `down` stops it.
    const page =
      runningUi(run.dataDir) ??
      (await startDetachedUi(run.kubeconfig, opts.uiAddr, run.dataDir, join(run.dataDir, 'ui.log')));
    out(`ui: ${page.url}  (the Graphs' DAGs, live; background process ${page.pid})`);
  } else if (opts.ui) {
    out(`see the Graphs live: ${CLI} ui --kubeconfig ${run.kubeconfig}`);
  }
}

/** `--no-controller`: the Graphs as they are, and how to reconcile them. */
async function reportUnreconciled(run: UpRun, graphs: KubeObject[]): Promise<number> {
  const observed = await readGraphs(run.client, graphs);
  run.out(formatReport(observed, run.kubeconfig, run.dataDir));
  run.out(
    `no controller was started (--no-controller): the Graphs are applied but nothing reconciles them.\n` +
      `run one with: ${CLI} controller --kubeconfig ${run.kubeconfig}`,
  );
  return 0;
}

/** Waits for the Graphs and the RGD instances, hands the controller over, and (foreground) waits for Ctrl-C. */
async function converge(
  run: UpRun,
  plan: UpPlan,
  graphs: KubeObject[],
  rgdsServed: Set<string>,
): Promise<number> {
  const { opts, out } = run;
  out(`waiting up to ${opts.timeout} for ${graphs.length} Graph(s) to become Ready…`);
  const tty = process.stdout.isTTY === true;
  // The in-process controller tells when it has nothing queued or running; a controller of an
  // earlier `up` (another process) cannot, so there the Graphs' conditions alone decide.
  const settled = (): boolean => run.manager?.idle() ?? true;
  const result = await waitWithProgress(run.client, graphs, run.timeoutMs, settled, tty, out);
  out(formatReport(result.graphs, run.kubeconfig, run.dataDir));
  const instancesActive = await waitForInstances(
    run.client,
    plan.rgds,
    plan.instances,
    rgdsServed,
    run.timeoutMs,
    out,
  );
  if (run.mode === 'detached') await handOver(run);
  if (!result.converged) {
    out(`not every Graph became Ready within ${opts.timeout}; controller logs: ${run.logFile}`);
    return 1;
  }
  if (!instancesActive) {
    out(`not every RGD instance became ACTIVE within ${opts.timeout}; controller logs: ${run.logFile}`);
    return 1;
  }
  if (run.mode !== 'in-process') return 0;

  out('The controller keeps reconciling: edit the examples or the cluster and watch it follow.');
  out(`Press Ctrl-C to stop the controller (the control plane keeps running; \`${CLI} down\` stops both).`);
  const signal = await waitForSignal();
  out(`${signal}: stopping the controller…`);
  return 0;
}

/** Stops the in-process manager and starts the background controller that takes over. */
async function handOver(run: UpRun): Promise<void> {
  await run.manager?.stop();
  run.manager = undefined;
  const pid = startDetachedController(run.kubeconfig, run.logFile);
  writeFileSync(pidFilePath(run.dataDir), JSON.stringify({ pid, mode: 'detached' } satisfies PidFile));
  run.ownsPidFile = false;
  run.out(`controller handed over to a background process (pid ${pid}, logs: ${run.logFile})`);
}

/** Stops what this process started and closes its connections. */
async function finish(run: UpRun): Promise<void> {
  await run.manager?.stop();
  if (run.ui) {
    await run.ui.server.close();
    await run.ui.source.close();
  }
  if (run.ownsPidFile) rmSync(pidFilePath(run.dataDir), { force: true });
  run.client.close();
}
