/**
 * Per-instance health and the fleet gate of a rollout as CEL (design/rgd.md §19.8): `readyWhen` and
 * `failWhen` see the instance as `schema` (as an RGD's own expressions do), the gate sees `fleet`
 * (the counts). Written `${…}` as in RGDs, or bare. Compiled once per rollout generation.
 */
import { baseEnvironment, compile, evaluate, type Program } from '../../../cel/index.ts';
import type { Counts } from './plan.ts';
import type { HealthSpec } from './spec.ts';

export type HealthErrorCode = 'InvalidExpression';

export class HealthExpressionError extends Error {
  readonly code: HealthErrorCode = 'InvalidExpression';
  constructor(message: string) {
    super(message);
    this.name = 'HealthExpressionError';
  }
}

export interface HealthPrograms {
  readyWhen: Program[];
  failWhen: Program[];
  gate?: Program;
}

const unwrap = (src: string): string => {
  const t = src.trim();
  return t.startsWith('${') && t.endsWith('}') ? t.slice(2, -1) : t;
};

export function compileHealth(h: HealthSpec): HealthPrograms | HealthExpressionError {
  const env = baseEnvironment().extend({ variables: { schema: 'dyn', fleet: 'dyn' } });
  const one = (src: string, field: string): Program | HealthExpressionError => {
    const p = compile(unwrap(src), env);
    return p.ok ? p.value : new HealthExpressionError(`${field} ${JSON.stringify(src)}: ${p.error.message}`);
  };
  const readyWhen: Program[] = [];
  const failWhen: Program[] = [];
  for (const s of h.readyWhen) {
    const p = one(s, 'spec.health.readyWhen');
    if (p instanceof HealthExpressionError) return p;
    readyWhen.push(p);
  }
  for (const s of h.failWhen) {
    const p = one(s, 'spec.health.failWhen');
    if (p instanceof HealthExpressionError) return p;
    failWhen.push(p);
  }
  if (h.gate === undefined) return { readyWhen, failWhen };
  const gate = one(h.gate, 'spec.gate');
  if (gate instanceof HealthExpressionError) return gate;
  return { readyWhen, failWhen, gate };
}

/** True only for a `true` result: an error or a missing field is "not (yet)". */
function holds(p: Program, vars: Record<string, unknown>): boolean {
  const r = evaluate(p, vars);
  return r.ok && r.value === true;
}

/** The health of an instance reconciled at the target. */
export function instanceHealth(p: HealthPrograms, instance: unknown): 'Ready' | 'Failed' | 'Pending' {
  const vars = { schema: instance };
  if (p.failWhen.some((x) => holds(x, vars))) return 'Failed';
  return p.readyWhen.every((x) => holds(x, vars)) ? 'Ready' : 'Pending';
}

export function gateHolds(p: HealthPrograms, counts: Counts): boolean {
  // Integers, so `fleet.failed == 0` compares int with int.
  const fleet = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, BigInt(v)]));
  return p.gate === undefined || holds(p.gate, { fleet });
}
