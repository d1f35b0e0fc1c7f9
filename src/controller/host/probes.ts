/**
 * HTTP endpoints of the controller process: `/metrics` (Prometheus text) on the metrics address,
 * `/healthz` and `/readyz` on the health address (they may be the same address).
 */
import http from 'node:http';

export interface Endpoints {
  metrics?: () => string | Promise<string>;
  healthy?: () => boolean;
  ready?: () => boolean;
  /** `/debug/history` (host/observe.ts): JSON for a query. */
  history?: (query: URLSearchParams) => unknown;
}

/** Parses `host:port`, `:port` or `port`. */
export function parseAddr(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  const host = i > 0 ? addr.slice(0, i) : '0.0.0.0';
  const port = Number(i >= 0 ? addr.slice(i + 1) : addr);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid address ${addr}`);
  return { host, port };
}

export async function serve(addr: string, endpoints: Endpoints): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const text = (code: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(code, { 'Content-Type': type });
      res.end(body);
    };
    if (path === '/metrics' && endpoints.metrics) {
      const metrics = endpoints.metrics;
      void (async () => {
        try {
          text(200, await metrics(), 'text/plain; version=0.0.4');
        } catch (err) {
          text(500, `metrics: ${err instanceof Error ? err.message : String(err)}\n`);
        }
      })();
      return;
    }
    if (path === '/debug/history' && endpoints.history) {
      const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
      return text(200, `${JSON.stringify(endpoints.history(query))}\n`, 'application/json');
    }
    if (path === '/healthz' && endpoints.healthy)
      return endpoints.healthy() ? text(200, 'ok\n') : text(500, 'unhealthy\n');
    if (path === '/readyz' && endpoints.ready)
      return endpoints.ready() ? text(200, 'ok\n') : text(503, 'not ready\n');
    return text(404, 'not found\n');
  });
  const { host, port } = parseAddr(addr);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
