/**
 * The `kgraph ui` HTTP server: one page, its assets (served from src/ui/static, nothing from outside),
 * a JSON snapshot API and a server-sent-event stream per page. Changes reported by the source are
 * coalesced (a few ms), the entries and each subscribed view recomputed once, and sent only to the
 * pages whose JSON changed, so an idle cluster costs nothing and a change reaches the page at once.
 *
 * Bound to loopback by default; requests whose Host header is not this server's are refused, so a
 * web page elsewhere cannot read the cluster through the user's browser (DNS rebinding).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseEntryKey } from './model.ts';
import { PageStreams } from './pageStreams.ts';
import type { UiSource } from './source.ts';

export interface UiServerOptions {
  source: UiSource;
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Told about failures that the page also sees. */
  onError?: (e: unknown) => void;
  /**
   * An instance's reconcile history, from the controller that keeps it (`kgraph ui --controller`):
   * `/api/history?key=` answers it for the page's timeline. Absent: the page shows no timeline.
   */
  history?: HistorySource;
}

/** Asks the controller for one object's passes (cli/history.ts `fetchHistory`). */
export type HistorySource = (q: {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}) => Promise<unknown[]>;

export interface UiServer {
  /** `http://host:port/` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const STATIC: Record<string, string> = {
  '/': 'index.html',
  '/static/app.js': 'app.js',
  '/static/style.css': 'style.css',
};
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The page's files, read once (they are part of the package). */
export function loadAssets(): Map<string, { body: Buffer; type: string }> {
  const out = new Map<string, { body: Buffer; type: string }>();
  for (const [route, file] of Object.entries(STATIC)) {
    const body = readFileSync(new URL(`./static/${file}`, import.meta.url));
    out.set(route, { body, type: TYPES[file.split('.').pop() ?? ''] ?? 'application/octet-stream' });
  }
  return out;
}

export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const host = opts.host ?? '127.0.0.1';
  const assets = loadAssets();
  const pages = new PageStreams(opts.source, opts.onError);
  const routes: Routes = {
    assets,
    pages,
    allowedHosts: new Set<string>(),
    ...(opts.history ? { history: opts.history } : {}),
  };
  // Bound to every address on purpose (--addr 0.0.0.0:…): any Host is expected then.
  const checkHost = host !== '0.0.0.0' && host !== '::';

  const server = createServer((req, res) => {
    handle(routes, checkHost, req, res).catch((e: unknown) => {
      opts.onError?.(e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  routes.allowedHosts = new Set([`${shownHost}:${port}`, `localhost:${port}`]);
  const url = `http://${shownHost}:${port}/`;

  return {
    url,
    port,
    async close() {
      pages.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** What a request is answered from: the page's files, the page streams, and the Host headers accepted. */
interface Routes {
  assets: Map<string, { body: Buffer; type: string }>;
  pages: PageStreams;
  allowedHosts: Set<string>;
  history?: HistorySource;
}

function json(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

/** `/api/history`: an instance's passes, `{ enabled: false }` without a controller to ask. */
async function historyJson(routes: Routes, key: string, res: ServerResponse): Promise<void> {
  const k = parseEntryKey(key);
  if (!routes.history || !k || k.type === 'RGD') return json(res, 200, '{"enabled":false,"passes":[]}');
  try {
    const passes = await routes.history({
      apiVersion: k.type === 'Graph' ? 'kro.run/v1alpha1' : (k.apiVersion ?? ''),
      kind: k.type === 'Graph' ? 'Graph' : (k.kind ?? ''),
      namespace: k.namespace ?? '',
      name: k.name,
    });
    return json(res, 200, JSON.stringify({ enabled: true, passes }));
  } catch (e) {
    return json(res, 200, JSON.stringify({ enabled: false, passes: [], error: String(e) }));
  }
}

/** One request: Host check, GET only, then an asset, the JSON API, or a page's event stream. */
async function handle(
  routes: Routes,
  checkHost: boolean,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (checkHost && !routes.allowedHosts.has(req.headers.host ?? '')) {
    res.writeHead(421, { 'content-type': 'text/plain' });
    res.end('kgraph ui: unexpected Host header\n');
    return;
  }
  const url = new URL(req.url ?? '/', 'http://ui.invalid');
  if (req.method !== 'GET') {
    res.writeHead(405, { allow: 'GET' });
    res.end();
    return;
  }
  const asset = routes.assets.get(url.pathname);
  if (asset) {
    res.writeHead(200, {
      'content-type': asset.type,
      'cache-control': 'no-cache',
      'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
      'x-content-type-options': 'nosniff',
    });
    res.end(asset.body);
    return;
  }
  if (url.pathname === '/api/entries') return json(res, 200, routes.pages.entriesJson());
  if (url.pathname === '/api/view') {
    const body = await routes.pages.viewJson(url.searchParams.get('key') ?? '');
    return json(res, body === 'null' ? 404 : 200, body);
  }
  if (url.pathname === '/api/history') return historyJson(routes, url.searchParams.get('key') ?? '', res);
  if (url.pathname === '/api/events') return routes.pages.open(req, res, url.searchParams.get('key') ?? '');
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found\n');
}
