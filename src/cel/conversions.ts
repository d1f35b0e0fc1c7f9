import { type Environment, EvaluationError } from './celJs.ts';
import { durationNanos } from './macros/compare.ts';

/**
 * Conversions the engine lacks (design/platform.md §3.6): `string(timestamp)`, `string(duration)`,
 * `int(timestamp)`, `int(uint)`, and the identity conversions `timestamp(timestamp)`, `duration(duration)`.
 */
const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';
const MAX_INT = 9223372036854775807n;

/** RFC 3339 in UTC with the fraction trimmed of trailing zeros (Go's RFC3339Nano, as cel-go prints). */
export function formatTimestamp(d: Date): string {
  const iso = d.toISOString();
  return iso.replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac ? `.${frac}Z` : 'Z'));
}

/** Seconds with the shortest fraction, suffixed `s` (cel-go: `1.5s`, `60s`, `-0.001s`). */
export function formatDuration(totalNanos: bigint): string {
  const negative = totalNanos < 0n;
  const abs = negative ? -totalNanos : totalNanos;
  const seconds = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${seconds}${frac ? `.${frac}` : ''}s`;
}

function overflow(message: string): Error {
  return new EvaluationError({ code: 'numeric_overflow', message });
}

export function installConversions(engine: Environment): void {
  engine.registerFunction(`string(${TS}): string`, (d: Date) => formatTimestamp(d));
  engine.registerFunction(`string(${DUR}): string`, (d: unknown) => formatDuration(durationNanos(d) ?? 0n));
  engine.registerFunction(`int(${TS}): int`, (d: Date) => BigInt(Math.floor(d.getTime() / 1000)));
  engine.registerFunction('int(uint): int', (u: { value: bigint }) => {
    if (u.value > MAX_INT) throw overflow('int() type error: integer overflow');
    return u.value;
  });
  engine.registerFunction(`timestamp(${TS}): ${TS}`, (d: Date) => d);
  engine.registerFunction(`duration(${DUR}): ${DUR}`, (d: unknown) => d);
}
