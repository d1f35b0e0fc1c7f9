/**
 * Reading a V8 CPU profile (the `Profiler.stop` answer of node:inspector, also what `--cpu-prof` writes):
 * self time per function and per area (a src/ folder, an npm package, Node internals, GC, idle), as
 * markdown table rows for bench/README.md.
 */
import { relative } from 'node:path';

export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
  }[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

const ROOT = relative('/', new URL('..', import.meta.url).pathname);

/** `src/controller`, `npm:yaml`, `node`, or the V8 pseudo-frame (`(garbage collector)`, `(idle)`). */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm:${pkg[1]}`;
  const src = /\/(src|bench|test)\/([^/]+)\//.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  return url.replace(/^file:\/\//, '').replace(`/${ROOT}/`, '');
}

function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const i = path.search(/\/(src|bench|node_modules)\//);
  return i >= 0 ? path.slice(i + 1) : path;
}

/** Table rows: the top `n` functions by self time, then self time by area. */
export function topFunctions(p: CpuProfile, n: number): string[] {
  const samples = p.samples?.length ?? p.nodes.reduce((s, x) => s + (x.hitCount ?? 0), 0);
  const totalMs = (p.endTime - p.startTime) / 1000;
  const perSample = samples > 0 ? totalMs / samples : 0;
  const byFn = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const node of p.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = `${functionName || '(anonymous)'} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ''}`.trim();
    byFn.set(fn, (byFn.get(fn) ?? 0) + hits);
    const area = areaOf(url, functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + hits);
  }
  const pct = (h: number) => `${((100 * h) / Math.max(1, samples)).toFixed(1)}%`;
  const t = (h: number) => `${(h * perSample).toFixed(0)} ms`;
  const top = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, n);
  const areas = [...byArea].sort((a, b) => b[1] - a[1]).slice(0, n);
  return [
    `Profile ${totalMs.toFixed(0)} ms wall, ${samples} samples.`,
    '',
    '| function | self | share |',
    '|---|---|---|',
    ...top.map(([f, h]) => `| \`${f}\` | ${t(h)} | ${pct(h)} |`),
    '',
    '| area | self | share |',
    '|---|---|---|',
    ...areas.map(([a, h]) => `| ${a} | ${t(h)} | ${pct(h)} |`),
  ];
}
