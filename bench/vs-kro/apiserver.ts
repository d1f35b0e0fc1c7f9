/**
 * The API server's side of a benchmark run: its own request counters and durations
 * (`apiserver_request_total`, `apiserver_request_duration_seconds`, by verb and resource, from its
 * /metrics) before and after a phase, and a CPU profile of it (`/debug/pprof/profile?seconds=N`: the
 * kube-testenv process, with etcd embedded in it; kube-apiserver serves pprof by default, `--profiling`).
 * Read with the admin kubeconfig's credentials (non-resource URLs that system:masters may read).
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '../../src/kube/kubeconfig.ts';

/** GET `path` on the current context's API server with its credentials; the raw body. */
export async function rawGet(kc: KubeConfig, path: string, timeoutMs = 120_000): Promise<Buffer> {
  const server = (kc.getCurrentCluster()?.server ?? '').replace(/\/+$/, '');
  if (!server) throw new Error('kubeconfig has no current cluster');
  const url = new URL(server + path);
  const opts: https.RequestOptions = { method: 'GET', headers: { Accept: '*/*' } };
  await kc.applyToHTTPSOptions(opts);
  const mod = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        if ((res.statusCode ?? 0) >= 300)
          reject(new Error(`GET ${path}: ${res.statusCode} ${body.toString('utf8').slice(0, 200)}`));
        else resolve(body);
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`GET ${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Per verb and resource: requests, and the summed duration of those the server finished timing. */
export interface RequestStat {
  count: number;
  durationCount: number;
  durationSeconds: number;
}

/** `VERB group/resource[/subresource]` → figures, plus the field-validation directives seen per verb. */
export interface ServerSnapshot {
  requests: Map<string, RequestStat>;
  /**
   * The field-validation directives the server has seen since it started (the series of
   * apiserver_field_validation_request_duration_seconds: the server creates one per directive, but
   * v1.37 never observes into it, so its counts stay 0 and only presence says anything).
   */
  fieldValidation: Set<string>;
}

function labels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) out[m[1] ?? ''] = m[2] ?? '';
  return out;
}

function requestKey(l: Record<string, string>): string {
  const res = `${l.group ? `${l.group}/` : ''}${l.resource ?? ''}${l.subresource ? `/${l.subresource}` : ''}`;
  return `${l.verb ?? '?'} ${res || '(non-resource)'}`;
}

/** Parses the API server's Prometheus text into the figures above. */
export function parseServerMetrics(text: string): ServerSnapshot {
  const requests = new Map<string, RequestStat>();
  const fieldValidation = new Set<string>();
  const stat = (k: string) => {
    let s = requests.get(k);
    if (!s) {
      s = { count: 0, durationCount: 0, durationSeconds: 0 };
      requests.set(k, s);
    }
    return s;
  };
  for (const m of text.matchAll(/^(\w+)\{([^}]*)\} ([0-9.e+-]+|NaN)$/gm)) {
    const name = m[1] ?? '';
    const value = Number(m[3]);
    if (!Number.isFinite(value)) continue;
    const l = labels(m[2] ?? '');
    if (l.component !== undefined && l.component !== 'apiserver') continue;
    if (name === 'apiserver_request_total') stat(requestKey(l)).count += value;
    else if (name === 'apiserver_request_duration_seconds_count') stat(requestKey(l)).durationCount += value;
    else if (name === 'apiserver_request_duration_seconds_sum') stat(requestKey(l)).durationSeconds += value;
    else if (name === 'apiserver_field_validation_request_duration_seconds_count')
      fieldValidation.add(l.field_validation ?? '?');
  }
  return { requests, fieldValidation };
}

export async function serverSnapshot(kc: KubeConfig): Promise<ServerSnapshot> {
  return parseServerMetrics((await rawGet(kc, '/metrics')).toString('utf8'));
}

/** `after − before`, keeping only what changed (the directives: all seen by `after`). */
export function serverDiff(before: ServerSnapshot, after: ServerSnapshot): ServerSnapshot {
  const requests = new Map<string, RequestStat>();
  for (const [k, a] of after.requests) {
    const b = before.requests.get(k) ?? { count: 0, durationCount: 0, durationSeconds: 0 };
    const d = {
      count: a.count - b.count,
      durationCount: a.durationCount - b.durationCount,
      durationSeconds: a.durationSeconds - b.durationSeconds,
    };
    if (d.count !== 0 || d.durationCount !== 0) requests.set(k, d);
  }
  return { requests, fieldValidation: new Set(after.fieldValidation) };
}

/** Requests in a diff, optionally only those whose key matches. */
export function totalRequests(s: ServerSnapshot, match?: RegExp): number {
  let n = 0;
  for (const [k, v] of s.requests) if (!match || match.test(k)) n += v.count;
  return n;
}

/**
 * A readable report of a diff: one line per verb and resource, most requests first, with the mean
 * server-side duration (watches are timed when they end, so theirs is omitted).
 */
export function formatServerReport(s: ServerSnapshot, indent = '  '): string {
  const rows = [...s.requests].sort((a, b) => b[1].count - a[1].count);
  const lines = rows.map(([k, v]) => {
    const mean =
      v.durationCount > 0 && !k.startsWith('WATCH')
        ? `, mean ${((v.durationSeconds / v.durationCount) * 1000).toFixed(2)} ms, total ${v.durationSeconds.toFixed(2)} s`
        : '';
    return `${indent}${k}: ${v.count}${mean}`;
  });
  if (s.fieldValidation.size > 0)
    lines.push(`${indent}field-validation directives seen: ${[...s.fieldValidation].sort().join(', ')}`);
  return lines.join('\n');
}

/**
 * Starts a CPU profile of the API server process for `seconds` (pprof's protobuf, for `go tool pprof`);
 * resolves with it when the server has sampled that long.
 */
export function serverCpuProfile(kc: KubeConfig, seconds: number): Promise<Buffer> {
  return rawGet(
    kc,
    `/debug/pprof/profile?seconds=${Math.max(1, Math.round(seconds))}`,
    (seconds + 60) * 1000,
  );
}
