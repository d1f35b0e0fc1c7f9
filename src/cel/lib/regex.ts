import type { Environment } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import { overrideBuiltin } from '../engineOverrides.ts';
import { checkListLength } from '../limits.ts';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';

/**
 * RE2 regular expressions (re2js): Kubernetes' regex library (`find`, `findAll`) from
 * k8s.io/apiserver/pkg/cel/library/regex.go, and the standard `matches`, which the engine implements
 * with JavaScript RegExp (no `(?i)` flags, backreferences accepted) — replaced here by RE2.
 */

const cache = new Map<string, RE2JS>();

export function compileRe2(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (!re) {
    try {
      re = RE2JS.compile(pattern);
    } catch (err) {
      throw celError(`Illegal regex: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (cache.size >= 500) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, re);
  }
  return re;
}

export function re2Matches(s: string, pattern: string): boolean {
  return compileRe2(pattern).matcher(s).find();
}

/**
 * Go's FindAllString: n < 0 means no limit; an empty match right after the previous match is
 * skipped (Java-style matchers, like re2js, would report it).
 */
export function findAll(s: string, pattern: string, limit: bigint): string[] {
  const out: string[] = [];
  if (limit === 0n) return out;
  const m = compileRe2(pattern).matcher(s);
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length && (limit < 0n || BigInt(out.length) < limit)) {
    if (!m.find(pos)) break;
    // The list limit applies while the list grows, not only to the finished list.
    checkListLength(out.length + 1);
    const start = m.start();
    const end = m.end();
    if (end === start) {
      if (start !== prevEnd) out.push('');
      pos = end + ((s.codePointAt(end) ?? 0) > 0xffff ? 2 : 1);
    } else {
      out.push(s.slice(start, end));
      pos = end;
    }
    prevEnd = end;
  }
  return out;
}

function find(s: string, pattern: string): string {
  const m = compileRe2(pattern).matcher(s);
  return m.find() ? s.slice(m.start(), m.end()) : '';
}

export const regexLibrary: CelLibrary = {
  name: 'kubernetes regex',
  install(env: Environment): void {
    overrideBuiltin('string.matches(string): bool', re2Matches);
    env.registerFunction('matches(string, string): bool', re2Matches);
    env.registerFunction('string.find(string): string', find);
    env.registerFunction('string.findAll(string): list<string>', (s: string, p: string) =>
      findAll(s, p, -1n),
    );
    env.registerFunction('string.findAll(string, int): list<string>', findAll);
  },
};
