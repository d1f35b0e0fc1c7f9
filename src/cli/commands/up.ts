/**
 * `kgraph up` / `kgraph down`: the newcomer's path. `up` starts (or reuses) the local control plane,
 * installs the Graph CRD, runs the Graph controller, applies the examples, waits for the Graphs to
 * converge with a progress display, prints what they created and how to explore it, and returns with
 * the controller left running in the background (so the README's next command can run in the same
 * shell). The first convergence runs under an in-process controller (its queue tells exactly when
 * everything was reconciled, which a Graph's conditions alone cannot on a reused data dir), then a
 * background `kgraph controller` takes over. `--foreground` keeps the in-process controller until
 * Ctrl-C instead. `down` stops the controller started by `up` (either mode) and the control plane.
 *
 * The controller's pid is recorded in `<data-dir>/controller.pid`, so a second `up` on the same data
 * dir reuses the running controller instead of starting a rival, and `down` knows what to stop.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { Listr } from 'listr2';
import pino from 'pino';
import YAML from 'yaml';
import { waitForCrd } from '../../controller/core/crdReady.ts';
import { controllerClient } from '../../controller/core/writeDefaults.ts';
import { installGraphCrd } from '../../controller/graph/crd.ts';
import { GRAPH_API_VERSION } from '../../controller/graph/names.ts';
import { Manager } from '../../controller/host/manager.ts';
import { installRgdCrd } from '../../controller/rgd/crd.ts';
import { HEARTBEAT_MS } from '../../deploy/progress.ts';
import { KgraphError } from '../../diag/diagnostic.ts';
import { kubectlName, kubectlNameIn, kubectlTable, namespaceCell } from '../../diag/objectName.ts';
import { isRecord } from '../../diag/record.ts';
import { expandInputs } from '../../graph/validate.ts';
import { connect } from '../../kube/connect.ts';
import type { RestClient } from '../../kube/rest.ts';
import type { KubeObject } from '../../kube/types.ts';
import { defaultDevDataDir, devClusterDown, devClusterUp } from '../../localplane/devCluster.ts';
import { repoRoot } from '../../localplane/localControlPlane.ts';
import type { UiServer } from '../../ui/server.ts';
import type { UiSource } from '../../ui/source.ts';
import { parseDuration } from '../duration.ts';
import { DEFAULT_UI_ADDR, liveUiSource, serveUi } from './ui.ts';
import { applyRgdExamples, waitForInstances } from './upRgd.ts';
import { runningUi, startDetachedUi, stopUi } from './upUi.ts';

const FIELD_MANAGER = 'kgraph-up';

export interface UpCliOptions {
  dataDir: string;
  examples: string;
  objects: string;
  timeout: string;
  controller: boolean;
  /** Keep the controller in this process until Ctrl-C instead of handing it to a background one. */
  foreground?: boolean;
  /** ResourceGraphDefinitions to apply, and instances of them (applied once their kinds are served). */
  rgds: string;
  instances: string;
  /** `kgraph ui` beside the in-process controller (`--no-ui` turns it off). */
  ui: boolean;
  uiAddr: string;
}

/** How the printed hints run the CLI: `npx kgraph` works after `npm ci`, a bare `kgraph` only when installed globally. */
export const CLI = 'npx kgraph';

// ---------------------------------------------------------------------------------------------
// Pure helpers (exported for unit tests)

/** The one duration parser (`src/cli/duration.ts`), re-exported for the up tests. */
export { parseDuration };

export interface LoadedDocument {
  file: string;
  object: KubeObject;
}

/**
 * The YAML files under `path`, recursively and sorted: the walker `kgraph validate` uses
 * (graph/validate.ts, one for every command); a missing directory holds none.
 */
function yamlFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  return expandInputs([path], []);
}

/** Every Kubernetes object in the YAML files under `path` (recursively, sorted by path). */
export function loadDocuments(path: string): LoadedDocument[] {
  const out: LoadedDocument[] = [];
  for (const file of yamlFiles(path)) {
    for (const doc of YAML.parseAllDocuments(readFileSync(file, 'utf8'))) {
      if (doc.errors.length > 0) throw new KgraphError('KG6081', `${file}: ${doc.errors[0]?.message}`);
      const v: unknown = doc.toJSON();
      if (v === null || v === undefined) continue;
      if (
        !isRecord(v) ||
        typeof v.apiVersion !== 'string' ||
        typeof v.kind !== 'string' ||
        !isRecord(v.metadata) ||
        typeof v.metadata.name !== 'string'
      )
        throw new KgraphError('KG6081', `${file}: every document needs apiVersion, kind and metadata.name`);
      out.push({ file, object: v as KubeObject });
    }
  }
  return out;
}

export interface UpPlan {
  /** Applied first and waited for (Established). */
  crds: LoadedDocument[];
  /** Namespaces first, then every other plain object. */
  objects: LoadedDocument[];
  /** Applied last; the controller reconciles them. */
  graphs: LoadedDocument[];
  /** ResourceGraphDefinitions, applied after the objects; then their instances once served. */
  rgds: LoadedDocument[];
  instances: LoadedDocument[];
  /** Documents `up` does not apply, with the reason. */
  skipped: { doc: LoadedDocument; reason: string }[];
}

/** Sorts documents into what `up` applies and in which order. */
export function planDocuments(docs: readonly LoadedDocument[]): UpPlan {
  const plan: UpPlan = { crds: [], objects: [], graphs: [], rgds: [], instances: [], skipped: [] };
  const rgdKinds = new Set(
    docs.flatMap((d) => {
      const s = (
        d.object.spec as { schema?: { kind?: string; group?: string; apiVersion?: string } } | undefined
      )?.schema;
      return d.object.kind === 'ResourceGraphDefinition' && s?.kind && s.apiVersion
        ? [`${s.group ?? 'kro.run'}/${s.apiVersion}/${s.kind}`]
        : [];
    }),
  );
  for (const d of docs) {
    const { apiVersion, kind } = d.object;
    if (kind === 'CustomResourceDefinition') plan.crds.push(d);
    else if (apiVersion === GRAPH_API_VERSION && kind === 'Graph') plan.graphs.push(d);
    else if (apiVersion === GRAPH_API_VERSION && kind === 'ResourceGraphDefinition') plan.rgds.push(d);
    else if (rgdKinds.has(`${apiVersion}/${kind}`)) plan.instances.push(d);
    else plan.objects.push(d);
  }
  plan.objects.sort((a, b) => Number(b.object.kind === 'Namespace') - Number(a.object.kind === 'Namespace'));
  return plan;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

export function conditionsOf(obj: KubeObject | undefined): Condition[] {
  const status = obj?.status;
  if (!isRecord(status) || !Array.isArray(status.conditions)) return [];
  return status.conditions.filter(
    (c): c is Condition => isRecord(c) && typeof c.type === 'string' && typeof c.status === 'string',
  );
}

export interface GraphProgress {
  ready: boolean;
  /** One line: the least healthy condition, e.g. `Ready=False DataPending: …`. */
  summary: string;
}

/** Whether a Graph is Ready for its current generation, and a one-line summary of where it stands. */
export function graphProgress(graph: KubeObject | undefined): GraphProgress {
  if (!graph) return { ready: false, summary: 'not found' };
  const conds = conditionsOf(graph);
  const ready = conds.find((c) => c.type === 'Ready');
  if (!ready) return { ready: false, summary: 'waiting for the controller' };
  const current =
    ready.observedGeneration === undefined || ready.observedGeneration === graph.metadata.generation;
  if (!current) return { ready: false, summary: 'waiting for the controller to observe the latest spec' };
  const text = `Ready=${ready.status}${ready.reason ? ` ${ready.reason}` : ''}${ready.message ? `: ${ready.message}` : ''}`;
  return { ready: ready.status === 'True', summary: text };
}

interface ManagedResource {
  nodeID?: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export function managedResourcesOf(graph: KubeObject | undefined): ManagedResource[] {
  const status = graph?.status;
  if (!isRecord(status) || !Array.isArray(status.managedResources)) return [];
  return status.managedResources.filter(
    (r): r is ManagedResource =>
      isRecord(r) &&
      typeof r.apiVersion === 'string' &&
      typeof r.kind === 'string' &&
      typeof r.name === 'string',
  );
}

function contributionsOf(graph: KubeObject | undefined): ManagedResource[] {
  const status = graph?.status;
  if (!isRecord(status) || !Array.isArray(status.contributions)) return [];
  return status.contributions.filter(
    (r): r is ManagedResource =>
      isRecord(r) &&
      typeof r.apiVersion === 'string' &&
      typeof r.kind === 'string' &&
      typeof r.name === 'string',
  );
}

function graphKey(o: KubeObject): string {
  return `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;
}

/** An applied document as kubectl names it: `graph.kro.run/showcase -n kgraph-examples` (diag/objectName.ts). */
const docName = (o: KubeObject): string =>
  kubectlNameIn({
    apiVersion: o.apiVersion,
    kind: o.kind,
    namespace: o.metadata.namespace,
    name: o.metadata.name ?? '',
  });

/** A Graph in progress lines and the report: `graph.kro.run/showcase -n kgraph-examples`. */
const graphName = (key: string): string => {
  const [namespace, name] = key.split('/') as [string, string];
  return kubectlNameIn({ apiVersion: GRAPH_API_VERSION, kind: 'Graph', namespace, name });
};

/** The report printed once the Graphs converged (or the wait timed out). */
export function formatReport(graphs: readonly KubeObject[], kubeconfig: string, dataDir: string): string {
  const lines: string[] = [];
  const kinds = new Set<string>();
  for (const g of graphs) {
    const p = graphProgress(g);
    lines.push('', `${graphName(graphKey(g))}  ${p.ready ? 'Ready' : 'NOT READY'}`);
    lines.push(
      `  conditions: ${conditionsOf(g)
        .map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`)
        .join(' · ')}`,
    );
    if (!p.ready) lines.push(`  ${p.summary}`);
    const managed = managedResourcesOf(g);
    if (managed.length > 0) {
      lines.push('  resources:');
      for (const r of managed) kinds.add(r.kind.toLowerCase());
      lines.push(
        ...kubectlTable(
          ['namespace', 'name', 'node'],
          managed.map((r) => [namespaceCell(r), kubectlName(r), r.nodeID ?? '?']),
          '    ',
        ),
      );
    }
    const contributions = contributionsOf(g);
    if (contributions.length > 0) {
      lines.push('  patched (fields contributed, object not owned):');
      lines.push(
        ...kubectlTable(
          ['namespace', 'name'],
          contributions.map((r) => [namespaceCell(r), kubectlName(r)]),
          '    ',
        ),
      );
    }
  }
  const defaultDir = dataDir === defaultDevDataDir();
  lines.push(
    '',
    'Explore:',
    `  export KUBECONFIG=${kubeconfig}`,
    '  kubectl get graphs -A',
    ...graphs.map(
      (g) => `  kubectl get graph ${g.metadata.name} -n ${g.metadata.namespace ?? 'default'} -o yaml`,
    ),
  );
  if (kinds.size > 0) lines.push(`  kubectl get ${[...kinds].sort().join(',')} -A -l kro.run/node-id`);
  lines.push(
    '  (examples/README.md has edits to try: flip includeWhen, grow a forEach, label a namespace)',
    '',
    `Stop everything with: ${CLI} down${defaultDir ? '' : ` --data-dir ${dataDir}`}`,
  );
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// The controller pid file

interface PidFile {
  pid: number;
  mode: 'foreground' | 'detached';
}

const pidFilePath = (dataDir: string): string => join(dataDir, 'controller.pid');

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function runningController(dataDir: string): PidFile | undefined {
  try {
    const p = JSON.parse(readFileSync(pidFilePath(dataDir), 'utf8')) as PidFile;
    return typeof p.pid === 'number' && pidAlive(p.pid) ? p : undefined;
  } catch {
    return undefined;
  }
}

/** Stops the controller recorded in the data dir (SIGTERM, then SIGKILL after 15 s). */
export async function stopController(dataDir: string): Promise<PidFile | undefined> {
  const p = runningController(dataDir);
  if (p) {
    process.kill(p.pid, 'SIGTERM');
    const deadline = Date.now() + 15_000;
    while (pidAlive(p.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (pidAlive(p.pid)) process.kill(p.pid, 'SIGKILL');
  }
  rmSync(pidFilePath(dataDir), { force: true });
  return p;
}

// ---------------------------------------------------------------------------------------------
// Waiting, with progress

async function readGraphs(client: RestClient, graphs: readonly KubeObject[]): Promise<KubeObject[]> {
  return Promise.all(
    graphs.map(
      async (g) =>
        (await client.getOrUndefined({
          apiVersion: GRAPH_API_VERSION,
          kind: 'Graph',
          namespace: g.metadata.namespace ?? 'default',
          name: g.metadata.name ?? '',
        })) ?? g,
    ),
  );
}

/**
 * Polls the Graphs until every one is Ready for its current generation, or the deadline passes.
 * `onProgress` hears every change of a Graph's summary. Resolves with the last observed Graphs.
 */
async function waitForGraphs(
  client: RestClient,
  graphs: readonly KubeObject[],
  timeoutMs: number,
  settled: () => boolean,
  onProgress: (key: string, p: GraphProgress) => void,
): Promise<{ graphs: KubeObject[]; converged: boolean }> {
  const deadline = Date.now() + timeoutMs;
  const last = new Map<string, string>();
  let settledPolls = 0;
  for (;;) {
    settledPolls = settled() ? settledPolls + 1 : 0;
    const observed = await readGraphs(client, graphs);
    let all = true;
    for (const g of observed) {
      const p = graphProgress(g);
      const key = graphKey(g);
      if (last.get(key) !== `${p.ready}${p.summary}`) {
        last.set(key, `${p.ready}${p.summary}`);
        onProgress(key, p);
      }
      all &&= p.ready;
    }
    // Ready must also hold once the controller has worked through every event (two quiet polls
    // in a row): on a reused data dir a Graph still carries the Ready of the previous run.
    if (all && settledPolls >= 2) return { graphs: observed, converged: true };
    if (Date.now() > deadline) return { graphs: observed, converged: false };
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Runs the wait with a listr2 task per Graph in a terminal, timestamped plain lines otherwise. */
async function waitWithProgress(
  client: RestClient,
  graphs: readonly KubeObject[],
  timeoutMs: number,
  settled: () => boolean,
  tty: boolean,
  write: (line: string) => void,
): Promise<{ graphs: KubeObject[]; converged: boolean }> {
  const started = Date.now();
  if (!tty) {
    // One line per change, and a heartbeat naming what is still awaited every 10 s without one.
    const waiting = new Map<string, string>();
    let last = Date.now();
    const secs = () => ((Date.now() - started) / 1000).toFixed(1).padStart(6);
    const beat = setInterval(() => {
      if (Date.now() - last < HEARTBEAT_MS - 50 || waiting.size === 0) return;
      write(
        `${secs()}s still   waiting for ${[...waiting].map(([k, s]) => `${graphName(k)} (${s})`).join(', ')}`,
      );
      last = Date.now();
    }, 1000);
    try {
      return await waitForGraphs(client, graphs, timeoutMs, settled, (key, p) => {
        if (p.ready) waiting.delete(key);
        else waiting.set(key, p.summary);
        write(`${secs()}s ${p.ready ? 'ready  ' : 'waiting'} ${graphName(key)}  ${p.summary}`);
        last = Date.now();
      });
    } finally {
      clearInterval(beat);
    }
  }
  const tasks = new Map<string, { update: (p: GraphProgress) => void; finish: (ok: boolean) => void }>();
  const latest = new Map<string, GraphProgress>();
  const list = new Listr(
    graphs.map((g) => ({
      title: graphName(graphKey(g)),
      task: (_ctx: unknown, task: { output: string; title: string }) =>
        new Promise<void>((res, rej) => {
          const key = graphKey(g);
          const update = (p: GraphProgress): void => {
            task.output = p.summary;
            if (p.ready) res();
          };
          tasks.set(key, {
            update,
            finish: (ok) => (ok ? res() : rej(new Error(latest.get(key)?.summary ?? 'timed out'))),
          });
          const seen = latest.get(key);
          if (seen) update(seen);
        }),
    })),
    { concurrent: true, exitOnError: false, rendererOptions: { collapseErrors: false } },
  );
  const running = list.run().catch(() => undefined);
  const result = await waitForGraphs(client, graphs, timeoutMs, settled, (key, p) => {
    latest.set(key, p);
    tasks.get(key)?.update(p);
  });
  for (const [key, t] of tasks) t.finish(latest.get(key)?.ready ?? false);
  await running;
  return result;
}

// ---------------------------------------------------------------------------------------------
// The commands

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

/** Starts `kgraph controller` as a detached process logging to `logFile`; returns its pid. */
function startDetachedController(kubeconfig: string, logFile: string): number {
  const fd = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, 'bin', 'kgraph.js'),
      'controller',
      '--kubeconfig',
      kubeconfig,
      '--metrics-addr',
      '0',
      '--health-addr',
      '0',
      '--no-install-crd',
    ],
    { detached: true, stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  child.unref();
  if (child.pid === undefined) throw new KgraphError('KG6083', 'could not start the controller process');
  return child.pid;
}

function waitForSignal(): Promise<string> {
  return new Promise((res) => {
    process.once('SIGINT', () => res('SIGINT'));
    process.once('SIGTERM', () => res('SIGTERM'));
  });
}

export async function runUp(opts: UpCliOptions): Promise<number> {
  const out = (s: string): void => {
    process.stdout.write(`${s}\n`);
  };
  const timeoutMs = parseDuration(opts.timeout, '--timeout');
  const dataDir = resolve(opts.dataDir);
  const docs = [
    ...loadDocuments(resolve(opts.objects)),
    ...loadDocuments(resolve(opts.examples)),
    ...loadDocuments(resolve(opts.rgds)),
    ...loadDocuments(resolve(opts.instances)),
  ];
  const plan = planDocuments(docs);
  if (plan.graphs.length === 0)
    throw new KgraphError('KG6082', `no Graph found under ${opts.examples} (or ${opts.objects})`);

  out(`starting the local control plane (data: ${dataDir})…`);
  const { ready, reused } = await devClusterUp(dataDir, (l) => process.stderr.write(`${l}\n`));
  out(`${reused ? 'reusing the control plane' : 'control plane started'} at ${ready.server}`);

  const client = connect(ready.kubeconfig);
  let manager: Manager | undefined;
  let ownsPidFile = false;
  let ui: { source: UiSource; server: UiServer } | undefined;
  try {
    const crd = await installGraphCrd(client, { timeoutMs });
    out(`installed ${docName(crd)}`);
    const rgdCrd = await installRgdCrd(client, { timeoutMs });
    out(`installed ${docName(rgdCrd)}`);

    const logFile = join(dataDir, 'controller.log');
    const existing = runningController(dataDir);
    let mode: 'in-process' | 'detached' | 'existing' | 'none';
    if (!opts.controller) mode = 'none';
    else if (existing) {
      mode = 'existing';
      out(`a controller started by an earlier \`kgraph up\` is running (pid ${existing.pid}); reusing it`);
    } else mode = opts.foreground ? 'in-process' : 'detached';
    if (mode === 'in-process' || mode === 'detached') {
      // Detached too, the first convergence runs under an in-process manager, whose queues tell
      // exactly when everything was reconciled; the background process takes over after.
      manager = await Manager.create({
        client: controllerClient(connect(ready.kubeconfig)),
        installCrds: false,
        graphs: {},
        rgds: {},
        log: pino(
          { name: 'kgraph-controller', level: 'info' },
          pino.destination({ dest: logFile, sync: true }),
        ),
      });
      await manager.start();
      writeFileSync(
        pidFilePath(dataDir),
        JSON.stringify({ pid: process.pid, mode: 'foreground' } satisfies PidFile),
      );
      ownsPidFile = true;
      out(`controller running in this process (logs: ${logFile})`);
    }
    if (opts.ui && mode === 'in-process') {
      const source = liveUiSource({ kubeconfig: ready.kubeconfig });
      ui = { source, server: await serveUi(source, opts.uiAddr, opts.uiAddr === DEFAULT_UI_ADDR) };
      out(`ui: ${ui.server.url}  (the Graphs' DAGs, live)`);
    } else if (opts.ui && mode !== 'none') {
      // `up` returns: the page runs in its own background process, as the controller does; `down` stops it.
      const page =
        runningUi(dataDir) ??
        (await startDetachedUi(ready.kubeconfig, opts.uiAddr, dataDir, join(dataDir, 'ui.log')));
      out(`ui: ${page.url}  (the Graphs' DAGs, live; background process ${page.pid})`);
    } else if (opts.ui) {
      out(`see the Graphs live: ${CLI} ui --kubeconfig ${ready.kubeconfig}`);
    }

    await applyPlan(client, plan, timeoutMs, (l) => out(l));
    const graphs = plan.graphs.map((d) => d.object);
    const rgdsServed = await applyRgdExamples(
      client,
      plan.rgds,
      plan.instances,
      mode !== 'none',
      timeoutMs,
      out,
    );

    if (mode === 'none') {
      const observed = await readGraphs(client, graphs);
      out(formatReport(observed, ready.kubeconfig, dataDir));
      out(
        `no controller was started (--no-controller): the Graphs are applied but nothing reconciles them.\n` +
          `run one with: ${CLI} controller --kubeconfig ${ready.kubeconfig}`,
      );
      return 0;
    }

    out(`waiting up to ${opts.timeout} for ${graphs.length} Graph(s) to become Ready…`);
    const tty = process.stdout.isTTY === true;
    // The in-process controller tells when it has nothing queued or running; a controller of an
    // earlier `up` (another process) cannot, so there the Graphs' conditions alone decide.
    const settled = (): boolean => manager?.idle() ?? true;
    const result = await waitWithProgress(client, graphs, timeoutMs, settled, tty, out);
    out(formatReport(result.graphs, ready.kubeconfig, dataDir));
    const instancesActive = await waitForInstances(
      client,
      plan.rgds,
      plan.instances,
      rgdsServed,
      timeoutMs,
      out,
    );
    if (mode === 'detached') {
      await manager?.stop();
      manager = undefined;
      const pid = startDetachedController(ready.kubeconfig, logFile);
      writeFileSync(pidFilePath(dataDir), JSON.stringify({ pid, mode: 'detached' } satisfies PidFile));
      ownsPidFile = false;
      out(`controller handed over to a background process (pid ${pid}, logs: ${logFile})`);
    }
    if (!result.converged) {
      out(`not every Graph became Ready within ${opts.timeout}; controller logs: ${logFile}`);
      return 1;
    }
    if (!instancesActive) {
      out(`not every RGD instance became ACTIVE within ${opts.timeout}; controller logs: ${logFile}`);
      return 1;
    }
    if (mode !== 'in-process') return 0;

    out('The controller keeps reconciling: edit the examples or the cluster and watch it follow.');
    out(`Press Ctrl-C to stop the controller (the control plane keeps running; \`${CLI} down\` stops both).`);
    const signal = await waitForSignal();
    out(`${signal}: stopping the controller…`);
    return 0;
  } finally {
    await manager?.stop();
    if (ui) {
      await ui.server.close();
      await ui.source.close();
    }
    if (ownsPidFile) rmSync(pidFilePath(dataDir), { force: true });
    client.close();
  }
}

export function registerUpCommands(program: Command): void {
  program
    .command('up')
    .description(
      'start the local control plane and the Graph controller, apply the examples, wait until they converge',
    )
    .option('--data-dir <dir>', 'control-plane state directory', defaultDevDataDir())
    .option('--examples <dir>', 'Graphs (and RGDs) to apply', join(repoRoot, 'examples', 'graphs'))
    .option('--rgds <dir>', 'ResourceGraphDefinitions to apply', join(repoRoot, 'examples', 'rgd'))
    .option(
      '--instances <dir>',
      'instances of those RGDs, applied once their kinds are served',
      join(repoRoot, 'examples', 'instances'),
    )
    .option(
      '--objects <dir>',
      'plain objects the examples need (namespaces, RBAC, data), applied first',
      join(repoRoot, 'examples', 'cluster'),
    )
    .option('--timeout <duration>', 'how long to wait for the Graphs to become Ready', '2m')
    .option('--no-controller', 'do not run the controller (apply only)')
    .option('--foreground', 'keep the controller in this process until Ctrl-C instead of returning')
    // The old opt-in for what is now the default; still accepted.
    .addOption(new Option('--detach').hideHelp())
    .option('--no-ui', 'do not serve the `kgraph ui` page beside the controller')
    .option('--ui-addr <host:port>', 'address of the `kgraph ui` page', DEFAULT_UI_ADDR)
    .option(
      '--planes',
      'multi-plane blueprints instead: management, host and consumer planes (docs/planes.md)',
    )
    .option('--consumers <n>', 'with --planes: consumer clusters', '2')
    .action(async (opts: UpCliOptions & { planes?: boolean; consumers: string }) => {
      if (opts.planes) {
        const { runUpPlanes } = await import('./upPlanes.ts');
        const dataDir =
          opts.dataDir === defaultDevDataDir() ? join(dirname(opts.dataDir), 'planes') : opts.dataDir;
        const code = await runUpPlanes(
          {
            consumers: Number(opts.consumers),
            dataDir,
            timeoutMs: Math.max(parseDuration(opts.timeout, '--timeout'), 180_000),
          },
          (l) => process.stdout.write(`${l}\n`),
        );
        process.exit(code);
      }
      const code = await runUp(opts);
      // Nothing may keep a finished `up` alive (renderer timers, keep-alive sockets); stdout to a
      // terminal or a pipe is written synchronously on Linux, so exiting here loses no output.
      process.exit(code);
    });

  program
    .command('down')
    .description('stop what `kgraph up` started: the Graph controller and the local control plane')
    .option('--data-dir <dir>', 'control-plane state directory', defaultDevDataDir())
    .action(async (opts: { dataDir: string }) => {
      const dataDir = resolve(opts.dataDir);
      const stopped = await stopController(dataDir);
      process.stdout.write(
        stopped ? `controller stopped (pid ${stopped.pid}, ${stopped.mode})\n` : 'no controller running\n',
      );
      const page = await stopUi(dataDir);
      if (page) process.stdout.write(`ui stopped (pid ${page.pid}, ${page.url})\n`);
      const down = await devClusterDown(dataDir);
      process.stdout.write(
        down ? 'control plane stopped (its data is kept)\n' : 'no control plane running\n',
      );
    });
}
