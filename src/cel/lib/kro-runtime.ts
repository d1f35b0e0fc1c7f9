import type { Environment } from '@marcbachmann/cel-js';
import {
  type Ast,
  type CheckContext,
  type Checker,
  type Evaluator,
  type MacroInput,
  macroParseError,
  type TypeDecl,
} from '../macros/engineTypes.ts';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';
import { ensureNamespace } from './namespaces.ts';

/**
 * kro's `runtime` library for custom instance conditions (design/graph.md §16.4, design/rgd.md §20.3), with kro's
 * behaviour (kubernetes-sigs/kro pkg/cel/library/runtime.go):
 *
 *   runtime.newCondition({type: 'DbReady', status: 'True', reason: 'Up', message: '…'}) → kro.run.Condition
 *   runtime.condition(obj, 'ResourcesReady') → kro.run.Condition (empty fields when obj has no such condition)
 *
 * newCondition takes a map literal with bare identifier keys (type, status, reason, message; type and
 * status required). The key rules are parse errors; the values are checked when evaluated: strings,
 * a non-empty type, status one of True/False/Unknown. Where the expressions may appear (only in an
 * RGD's spec.schema.status.conditions) is the compiler's rule, not this library's.
 */

export const CONDITION_TYPE = 'kro.run.Condition';
const KEYS = ['type', 'status', 'reason', 'message'] as const;
type ConditionKey = (typeof KEYS)[number];
const STATUSES = new Set(['True', 'False', 'Unknown']);

/** A condition value; its fields read like a map's (`c.status`). */
export class RuntimeCondition {
  constructor(
    readonly type: string,
    readonly status: string,
    readonly reason: string,
    readonly message: string,
  ) {}

  /** The wire shape (metav1.Condition without the timestamps and observedGeneration). */
  toJSON(): { type: string; status: string; reason: string; message: string } {
    return { type: this.type, status: this.status, reason: this.reason, message: this.message };
  }
}

interface NewConditionMacro {
  readonly entries: readonly { key: ConditionKey; value: Ast }[];
  typeCheck(checker: Checker, macro: NewConditionMacro, ctx: CheckContext): TypeDecl;
  evaluate(ev: Evaluator, macro: NewConditionMacro, ctx: CheckContext): unknown;
}

function expandNewCondition({ args, ast }: MacroInput): NewConditionMacro {
  const arg = args[0];
  if (arg?.op !== 'map' || !Array.isArray(arg.args)) {
    throw macroParseError('runtime.newCondition: argument must be a map literal', arg ?? ast);
  }
  const entries: { key: ConditionKey; value: Ast }[] = [];
  for (const pair of arg.args as [Ast, Ast][]) {
    const [key, value] = pair;
    if (key.op !== 'id' || typeof key.args !== 'string') {
      throw macroParseError(
        'runtime.newCondition: keys must be bare identifiers (type, status, reason, message); quoted or computed keys are not allowed',
        key,
      );
    }
    const name = key.args;
    if (!(KEYS as readonly string[]).includes(name)) {
      throw macroParseError(
        `runtime.newCondition: unknown key ${JSON.stringify(name)} (allowed: type, status, reason, message)`,
        key,
      );
    }
    if (entries.some((e) => e.key === name)) {
      throw macroParseError(`runtime.newCondition: duplicate key ${JSON.stringify(name)}`, key);
    }
    entries.push({ key: name as ConditionKey, value });
  }
  for (const required of ['type', 'status'] as const) {
    if (!entries.some((e) => e.key === required)) {
      throw macroParseError(`runtime.newCondition: '${required}' is required`, arg);
    }
  }
  return { entries, typeCheck: checkNewCondition, evaluate: evaluateNewCondition };
}

function checkNewCondition(checker: Checker, macro: NewConditionMacro, ctx: CheckContext): TypeDecl {
  for (const { key, value } of macro.entries) {
    const t = checker.check(value, ctx);
    if (t.kind !== 'dyn' && t.name !== 'string') {
      throw checker.createError(
        'invalid_macro_argument',
        `runtime.newCondition: ${key} must be a string, got '${checker.formatType(t)}'`,
        value,
      );
    }
  }
  return checker.getType(CONDITION_TYPE);
}

function evaluateNewCondition(ev: Evaluator, macro: NewConditionMacro, ctx: CheckContext): unknown {
  const fields: Record<ConditionKey, string> = { type: '', status: '', reason: '', message: '' };
  for (const { key, value } of macro.entries) {
    const v = ev.run(value, ctx);
    if (typeof v !== 'string') {
      throw ev.createError(
        'no_such_overload',
        `runtime.newCondition: ${key} must be a string, got ${ev.debugType(v).name}`,
        value,
      );
    }
    fields[key] = v;
  }
  if (fields.type === '') throw celError('runtime.newCondition: type must not be empty');
  if (!STATUSES.has(fields.status)) {
    throw celError(
      `runtime.newCondition: status must be one of True, False, Unknown (got ${JSON.stringify(fields.status)})`,
    );
  }
  return new RuntimeCondition(fields.type, fields.status, fields.reason, fields.message);
}

function field(o: unknown, key: string): unknown {
  if (o instanceof Map) return o.get(key);
  if (o !== null && typeof o === 'object') return (o as Record<string, unknown>)[key];
  return undefined;
}

function asString(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** runtime.condition(obj, type): the condition of that type in obj.status.conditions[], or an empty one. */
export function lookupCondition(obj: unknown, wanted: string): RuntimeCondition {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw celError('runtime.condition: obj must be an object');
  }
  const status = field(obj, 'status');
  if (status === undefined || status === null) return new RuntimeCondition('', '', '', '');
  if (typeof status !== 'object' || Array.isArray(status)) {
    throw celError('runtime.condition: obj.status must be an object');
  }
  const conditions = field(status, 'conditions');
  if (conditions === undefined || conditions === null) return new RuntimeCondition('', '', '', '');
  if (!Array.isArray(conditions)) throw celError('runtime.condition: obj.status.conditions must be a list');
  for (const c of conditions) {
    if (c instanceof RuntimeCondition) {
      if (c.type === wanted) return c;
      continue;
    }
    if (c === null || typeof c !== 'object') {
      throw celError('runtime.condition: unexpected condition element');
    }
    if (field(c, 'type') === wanted) {
      return new RuntimeCondition(
        wanted,
        asString(field(c, 'status')),
        asString(field(c, 'reason')),
        asString(field(c, 'message')),
      );
    }
  }
  return new RuntimeCondition('', '', '', '');
}

export const kroRuntimeLibrary: CelLibrary = {
  name: 'kro runtime',
  install(env: Environment): void {
    env.registerType(CONDITION_TYPE, {
      ctor: RuntimeCondition,
      fields: { type: 'string', status: 'string', reason: 'string', message: 'string' },
    });
    const ns = ensureNamespace(env, 'runtime');
    env.registerFunction(`${ns}.newCondition(ast): ${CONDITION_TYPE}`, expandNewCondition);
    env.registerFunction(
      `${ns}.condition(dyn, string): ${CONDITION_TYPE}`,
      (_ns: unknown, obj: unknown, type: string) => lookupCondition(obj, type),
    );
  },
};
