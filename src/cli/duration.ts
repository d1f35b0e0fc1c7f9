/**
 * The one duration syntax of every kgraph option: Go/kubectl style
 * `90s`, `2m`, `1h30m`, `1500ms`, `1.5h`, or a bare number of seconds.
 */
import { KgraphError } from '../diag/diagnostic.ts';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds for `text`; `option` names the flag in the error (`--timeout`). */
export function parseDuration(text: string, option = 'duration'): number {
  const s = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const part = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let end = 0;
  for (let m = part.exec(s); m; m = part.exec(s)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    end = part.lastIndex;
  }
  if (s === '' || end !== s.length) {
    throw new KgraphError(
      'KG6080',
      `${option}: invalid duration "${text}" (use e.g. 90s, 2m, 1h30m, 1500ms)`,
    );
  }
  return Math.round(total);
}
