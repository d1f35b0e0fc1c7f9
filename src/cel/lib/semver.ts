import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';

/**
 * Kubernetes semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go) over blang/semver/v4
 * strict parsing: MAJOR.MINOR.PATCH, no leading zeros in numeric parts, optional -prerelease and
 * +build. With `normalize`, a leading `v` is dropped, missing minor/patch become 0 and leading zeros
 * are removed first, as Kubernetes does.
 */

const NUM = '(0|[1-9][0-9]*)';
const IDENT = '[0-9A-Za-z-]+';
const SEMVER = new RegExp(
  `^${NUM}\\.${NUM}\\.${NUM}(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+(${IDENT}(?:\\.${IDENT})*))?$`,
);

export class Semver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly string[],
    readonly build: readonly string[],
  ) {}

  toString(): string {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.pre.length) s += `-${this.pre.join('.')}`;
    if (this.build.length) s += `+${this.build.join('.')}`;
    return s;
  }

  /** Semantic Versioning 2.0.0 precedence; build metadata is ignored. */
  compareTo(o: Semver): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const) {
      if (a !== b) return a < b ? -1 : 1;
    }
    if (this.pre.length === 0 || o.pre.length === 0) {
      return this.pre.length === o.pre.length ? 0 : this.pre.length === 0 ? 1 : -1;
    }
    for (let i = 0; i < Math.min(this.pre.length, o.pre.length); i++) {
      const a = this.pre[i] as string;
      const b = o.pre[i] as string;
      if (a === b) continue;
      const an = /^[0-9]+$/.test(a);
      const bn = /^[0-9]+$/.test(b);
      if (an && bn) return BigInt(a) < BigInt(b) ? -1 : 1;
      if (an !== bn) return an ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return this.pre.length === o.pre.length ? 0 : this.pre.length < o.pre.length ? -1 : 1;
  }

  equals(other: unknown): boolean {
    return other instanceof Semver && this.compareTo(other) === 0;
  }
}

/** Kubernetes' normalizeAndParse (semverlib.go), before the strict parse. */
function normalize(s: string): string {
  const text = s.startsWith('v') ? s.slice(1) : s;
  // strings.SplitN(s, ".", 3): at most three parts, the last keeps its dots.
  const first = text.indexOf('.');
  const second = first < 0 ? -1 : text.indexOf('.', first + 1);
  const parts =
    first < 0
      ? [text]
      : second < 0
        ? [text.slice(0, first), text.slice(first + 1)]
        : [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
  const trimmed = parts.map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t === '' || !/^[0-9]/.test(t) ? `0${t}` : t;
  });
  if (trimmed.length < 3) {
    if (/[+-]/.test(trimmed[trimmed.length - 1] ?? '')) {
      throw celError('short version cannot contain PreRelease/Build meta data');
    }
    while (trimmed.length < 3) trimmed.push('0');
  }
  return trimmed.join('.');
}

export function parseSemver(s: string, normalizeInput = false): Semver {
  const text = normalizeInput ? normalize(s) : s;
  const m = SEMVER.exec(text);
  if (!m) throw celError(`could not parse semver: ${JSON.stringify(s)}`);
  const pre = m[4] ? m[4].split('.') : [];
  if (pre.some((p) => /^0[0-9]+$/.test(p))) {
    throw celError(
      `could not parse semver: ${JSON.stringify(s)}: numeric pre-release identifier has a leading zero`,
    );
  }
  return new Semver(
    BigInt(m[1] ?? '0'),
    BigInt(m[2] ?? '0'),
    BigInt(m[3] ?? '0'),
    pre,
    m[5] ? m[5].split('.') : [],
  );
}

function isSemver(s: string, normalizeInput = false): boolean {
  try {
    parseSemver(s, normalizeInput);
    return true;
  } catch {
    return false;
  }
}

export const semverLibrary: CelLibrary = {
  name: 'kubernetes semver',
  install(env: Environment): void {
    env.registerType('kubernetes.Semver', Semver);
    env.registerFunction('semver(string): kubernetes.Semver', (s: string) => parseSemver(s));
    env.registerFunction('semver(string, bool): kubernetes.Semver', parseSemver);
    env.registerFunction('isSemver(string): bool', (s: string) => isSemver(s));
    env.registerFunction('isSemver(string, bool): bool', isSemver);
    env.registerFunction('kubernetes.Semver.major(): int', (v: Semver) => v.major);
    env.registerFunction('kubernetes.Semver.minor(): int', (v: Semver) => v.minor);
    env.registerFunction('kubernetes.Semver.patch(): int', (v: Semver) => v.patch);
    env.registerFunction('kubernetes.Semver.compareTo(kubernetes.Semver): int', (a: Semver, b: Semver) =>
      BigInt(a.compareTo(b)),
    );
    env.registerFunction(
      'kubernetes.Semver.isLessThan(kubernetes.Semver): bool',
      (a: Semver, b: Semver) => a.compareTo(b) < 0,
    );
    env.registerFunction(
      'kubernetes.Semver.isGreaterThan(kubernetes.Semver): bool',
      (a: Semver, b: Semver) => a.compareTo(b) > 0,
    );
    env.registerOperator('kubernetes.Semver == kubernetes.Semver', (a: Semver, b: Semver) => a.equals(b));
  },
};
