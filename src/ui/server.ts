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
import type { UiSource } from './source.ts';

export interface UiServerOptions {
  source: UiSource;
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Told about failures that the page also sees. */
  onError?: (e: unknown) => void;
}

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

interface Client {
  res: ServerResponse;
  key: string;
  entries: string;
  view: string;
}

/** How long changes are gathered before the pages are updated (a burst of watch events → one update). */
const COALESCE_MS = 15;
const HEARTBEAT_MS = 20_000;

export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const { source } = opts;
  const host = opts.host ?? '127.0.0.1';
  const assets = loadAssets();
  const clients = new Set<Client>();
  let allowedHosts = new Set<string>();
  // Bound to every address on purpose (--addr 0.0.0.0:…): any Host is expected then.
  const checkHost = host !== '0.0.0.0' && host !== '::';

  const send = (c: Client, event: string, data: string): void => {
    c.res.write(`event: ${event}\ndata: ${data}\n\n`);
  };

  const viewJson = async (key: string): Promise<string> => {
    try {
      return JSON.stringify((await source.view(key)) ?? null);
    } catch (e) {
      opts.onError?.(e);
      return JSON.stringify({ error: e instanceof Error ? e.message : String(e), key });
    }
  };

  const entriesJson = (): string =>
    JSON.stringify({ description: source.description, entries: source.entries() });

  const refresh = async (): Promise<void> => {
    if (clients.size === 0) return;
    const entries = entriesJson();
    const views = new Map<string, string>();
    for (const c of clients) {
      if (c.key !== '' && !views.has(c.key)) views.set(c.key, await viewJson(c.key));
    }
    for (const c of clients) {
      if (c.entries !== entries) {
        c.entries = entries;
        send(c, 'entries', entries);
      }
      const v = views.get(c.key);
      if (v !== undefined && c.view !== v) {
        c.view = v;
        send(c, 'view', v);
      }
    }
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  const schedule = (): void => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void run();
    }, COALESCE_MS);
  };
  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await refresh();
    } catch (e) {
      opts.onError?.(e);
    } finally {
      running = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };
  const unsubscribe = source.onChange(schedule);

  const heartbeat = setInterval(() => {
    for (const c of clients) c.res.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();

  const json = (res: ServerResponse, status: number, body: string): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (checkHost && !allowedHosts.has(req.headers.host ?? '')) {
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
    const asset = assets.get(url.pathname);
    if (asset) {
      res.writeHead(200, {
        'content-type': asset.type,
        'cache-control': 'no-cache',
        'content-security-policy':
          "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
        'x-content-type-options': 'nosniff',
      });
      res.end(asset.body);
      return;
    }
    if (url.pathname === '/api/entries') return json(res, 200, entriesJson());
    if (url.pathname === '/api/view') {
      const body = await viewJson(url.searchParams.get('key') ?? '');
      return json(res, body === 'null' ? 404 : 200, body);
    }
    if (url.pathname === '/api/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write('retry: 1000\n\n');
      const c: Client = { res, key: url.searchParams.get('key') ?? '', entries: '', view: '' };
      clients.add(c);
      req.on('close', () => clients.delete(c));
      c.entries = entriesJson();
      send(c, 'entries', c.entries);
      if (c.key !== '') {
        c.view = await viewJson(c.key);
        send(c, 'view', c.view);
      }
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
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
  allowedHosts = new Set([`${shownHost}:${port}`, `localhost:${port}`]);
  const url = `http://${shownHost}:${port}/`;

  return {
    url,
    port,
    async close() {
      unsubscribe();
      clearInterval(heartbeat);
      if (timer) clearTimeout(timer);
      for (const c of clients) c.res.end();
      clients.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
