import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';
import { celCompare, celEquals } from './values.ts';

/** Kubernetes list library (k8s.io/apiserver/pkg/cel/library/lists.go). */

const MAX_INT = 9223372036854775807n;
const MIN_INT = -9223372036854775808n;
const MAX_UINT = 18446744073709551615n;

function isSorted(list: unknown[]): boolean {
  for (let i = 1; i < list.length; i++) if (celCompare(list[i - 1], list[i]) > 0) return false;
  return true;
}

function sumInts(list: bigint[]): bigint {
  let total = 0n;
  for (const x of list) {
    total += x;
    if (total > MAX_INT || total < MIN_INT) throw celError('integer overflow');
  }
  return total;
}

function sumUints(list: UnsignedInt[]): UnsignedInt {
  let total = 0n;
  for (const x of list) {
    total += x.value;
    if (total > MAX_UINT) throw celError('unsigned integer overflow');
  }
  return new UnsignedInt(total);
}

function sumDurations(list: Duration[]): Duration {
  let nanos = 0n;
  for (const d of list) nanos += BigInt(d.seconds) * 1_000_000_000n + BigInt(d.nanos);
  return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
}

/** Sum of a dyn list: the element type decides (an empty list sums to int 0). */
function sumDyn(list: unknown[]): unknown {
  const first = list[0];
  if (first === undefined || typeof first === 'bigint') return sumInts(list as bigint[]);
  if (typeof first === 'number') return (list as number[]).reduce((a, b) => a + b, 0);
  if (first instanceof UnsignedInt) return sumUints(list as UnsignedInt[]);
  if (first instanceof Duration) return sumDurations(list as Duration[]);
  throw celError('no such overload: sum');
}

function extreme(list: unknown[], name: 'min' | 'max'): unknown {
  if (list.length === 0) throw celError(`${name} called on empty list`);
  let best = list[0];
  for (const x of list.slice(1)) {
    const c = celCompare(x, best);
    if (name === 'min' ? c < 0 : c > 0) best = x;
  }
  return best;
}

export const k8sListsLibrary: CelLibrary = {
  name: 'kubernetes lists',
  install(env: Environment): void {
    env.registerFunction('list<A>.isSorted(): bool', isSorted);
    env.registerFunction('list<int>.sum(): int', sumInts);
    env.registerFunction('list<double>.sum(): double', (l: number[]) => l.reduce((a, b) => a + b, 0));
    env.registerFunction('list<uint>.sum(): uint', sumUints);
    env.registerFunction('list<google.protobuf.Duration>.sum(): google.protobuf.Duration', sumDurations);
    env.registerFunction('list<dyn>.sum(): dyn', sumDyn);
    env.registerFunction('list<A>.min(): A', (l: unknown[]) => extreme(l, 'min'));
    env.registerFunction('list<A>.max(): A', (l: unknown[]) => extreme(l, 'max'));
    env.registerFunction('list<A>.indexOf(A): int', (l: unknown[], x: unknown) =>
      BigInt(l.findIndex((y) => celEquals(y, x))),
    );
    env.registerFunction('list<A>.lastIndexOf(A): int', (l: unknown[], x: unknown) =>
      BigInt(l.findLastIndex((y) => celEquals(y, x))),
    );
    // Lists library version 1: `includes` on any receiver (a list: membership; else: equality).
    env.registerFunction('dyn.includes(dyn): bool', (target: unknown, x: unknown) =>
      Array.isArray(target) ? target.some((y) => celEquals(y, x)) : celEquals(target, x),
    );
  },
};
