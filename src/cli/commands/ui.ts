/**
 * `kgraph ui [--kubeconfig PATH] [--addr 127.0.0.1:PORT] [--namespace NS]... [--open]`: a local web
 * page that draws every Graph, RGD and RGD instance the user may read as its DAG, each node coloured
 * by its state, updated live from the cluster's watches (docs/ui.md).
 * `kgraph ui --render FILE [--state FILE]... [--instance FILE] [--crd FILE]...`: the same page for
 * what `kgraph render` computes, without a cluster.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { KgraphError } from '../../diag/diagnostic.ts';
import { loadKubeConfig } from '../../kube/connect.ts';
import { RestClient } from '../../kube/rest.ts';
import { clusterSource } from '../../ui/clusterSource.ts';
import { offlineSource } from '../../ui/offlineSource.ts';
import { type HistorySource, startUiServer, type UiServer } from '../../ui/server.ts';
import type { UiSource } from '../../ui/source.ts';
import { fetchHistory } from '../history.ts';
import { runRender } from './render.ts';

export const DEFAULT_UI_ADDR = '127.0.0.1:7171';

export interface UiCliOptions {
  kubeconfig?: string;
  context?: string;
  addr: string;
  /** The controller whose reconcile history the timeline shows (its metrics address). */
  controller?: string;
  namespace: string[];
  open?: boolean;
  render?: string;
  state: string[];
  instance?: string;
  crd: string[];
  name?: string;
  /** `kgraph up`'s detached page: write `{ pid, url }` here once serving, remove it on exit (cli/up/ui.ts). */
  record?: string;
}

/** `host:port`, `[v6]:port` or `:port` (loopback). */
export function parseAddr(addr: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr.trim());
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || port > 65535)
    throw new KgraphError('KG6090', `invalid --addr "${addr}" (use host:port, e.g. 127.0.0.1:7171)`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/**
 * Starts the server; when the port of the default address is taken, falls back to a free port
 * (the address actually used is in the result).
 */
export async function serveUi(
  source: UiSource,
  addr: string,
  fallback: boolean,
  history?: HistorySource,
): Promise<UiServer> {
  const { host, port } = parseAddr(addr);
  try {
    return await startUiServer({
      source,
      host,
      port,
      ...(history ? { history } : {}),
      onError: (e) => process.stderr.write(`kgraph ui: ${String(e)}\n`),
    });
  } catch (e) {
    if (!fallback || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    return startUiServer({
      source,
      host,
      port: 0,
      ...(history ? { history } : {}),
      onError: (e2) => process.stderr.write(`kgraph ui: ${String(e2)}\n`),
    });
  }
}

/** The live source over the cluster of a kubeconfig, with the user's own credentials. */
export function liveUiSource(opts: {
  kubeconfig?: string;
  context?: string;
  namespaces?: string[];
}): UiSource {
  const kc = loadKubeConfig(opts.kubeconfig, opts.context);
  const client = new RestClient(kc);
  const contextNs = kc.getContextObject(kc.getCurrentContext())?.namespace;
  return clusterSource({
    client,
    closeClient: true,
    ...(opts.namespaces && opts.namespaces.length > 0 ? { namespaces: opts.namespaces } : {}),
    ...(contextNs ? { fallbackNamespace: contextNs } : {}),
  });
}

export function offlineUiSource(opts: UiCliOptions & { render: string }): UiSource {
  const files = [opts.render, ...opts.state, ...(opts.instance ? [opts.instance] : []), ...opts.crd];
  return offlineSource({
    description: `offline: kgraph render ${opts.render}${opts.state.map((s) => ` --state ${s}`).join('')}`,
    files,
    render: () => {
      const run = runRender(opts.render, {
        state: opts.state,
        crd: opts.crd,
        untilConverged: false,
        output: 'json',
        ...(opts.instance !== undefined ? { instance: opts.instance } : {}),
        ...(opts.name !== undefined ? { name: opts.name } : {}),
      });
      if (!run.details) throw new Error(run.stderr.trim() || `nothing to render in ${opts.render}`);
      return run.details;
    },
  });
}

function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(cmd, [url], { detached: true, stdio: 'ignore' });
  child.on('error', () => process.stderr.write(`kgraph ui: could not start ${cmd}; open ${url} yourself\n`));
  child.unref();
}

const collect = (v: string, prev: string[]): string[] => [...prev, v];

export function registerUiCommand(program: Command): void {
  program
    .command('ui')
    .description('a local web page that draws Graphs, RGDs and instances as live DAGs (or a render offline)')
    .option('--kubeconfig <path>', 'kubeconfig (default: KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context')
    .option('--addr <host:port>', 'address to serve on (loopback by default)', DEFAULT_UI_ADDR)
    .option(
      '--namespace <ns>',
      'only these namespaces (repeatable; default: all the user may list)',
      collect,
      [],
    )
    .option(
      '--controller <addr>',
      "the controller's metrics address, whose reconcile history the timeline shows",
      process.env.KGRAPH_CONTROLLER ?? 'http://127.0.0.1:8080',
    )
    .option('--open', 'open the page in the default browser')
    .option('--render <file>', 'offline: show what `kgraph render FILE` computes, no cluster')
    .option('--state <file>', 'offline: observed objects (repeatable)', collect, [])
    .option('--instance <file>', 'offline: the RGD instance to render')
    .option('--crd <file>', 'offline: CRD file used as a schema source (repeatable)', collect, [])
    .option('--name <name>', 'offline: the object to render when the file holds several')
    .addOption(new Option('--record <file>').hideHelp())
    .action(async (opts: UiCliOptions) => {
      const source =
        opts.render !== undefined
          ? offlineUiSource({ ...opts, render: opts.render })
          : liveUiSource({
              ...(opts.kubeconfig !== undefined ? { kubeconfig: opts.kubeconfig } : {}),
              ...(opts.context !== undefined ? { context: opts.context } : {}),
              namespaces: opts.namespace,
            });
      const history: HistorySource | undefined =
        opts.render !== undefined
          ? undefined
          : (q) => fetchHistory({ controller: opts.controller ?? 'http://127.0.0.1:8080', ...q });
      const server = await serveUi(source, opts.addr, opts.addr === DEFAULT_UI_ADDR, history);
      process.stdout.write(`kgraph ui: ${server.url}  (${source.description}; Ctrl-C stops)\n`);
      if (opts.open) openBrowser(server.url);
      if (opts.record) writeFileSync(opts.record, JSON.stringify({ pid: process.pid, url: server.url }));
      await new Promise<void>((res) => {
        process.once('SIGINT', () => res());
        process.once('SIGTERM', () => res());
      });
      if (opts.record) rmSync(opts.record, { force: true });
      await server.close();
      await source.close();
      process.exit(0);
    });
}
