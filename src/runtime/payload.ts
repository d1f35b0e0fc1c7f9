/**
 * Renders a payload value tree: literals are copied (converted to CEL values), expression slots are
 * evaluated, and `omit()` removes the containing map key or list element (design/graph.md §16.5).
 * The first pending or failing expression stops the rendering with an `ExprStop` naming it.
 */

import { isRecord } from '../diag/record.ts';
import type { CompiledExpr, ExprSlot, FieldPath, ValueNode } from '../graph/model.ts';
import { RuntimeCode } from './codes.ts';
import type { EngineHost, ExprFailure } from './host.ts';
import { isOptionalValue, unwrapOptional } from './values.ts';

/** Why evaluation stopped: data pending (soft) or a hard error, with the expression that caused it. */
export class ExprStop extends Error {
  readonly kind: 'pending' | 'error';
  readonly code: string;
  readonly expression: string;
  readonly field: string;
  readonly reference: string | undefined;
  constructor(
    kind: 'pending' | 'error',
    code: string,
    message: string,
    expression: string,
    field: string,
    reference?: string,
  ) {
    super(message);
    this.name = 'ExprStop';
    this.kind = kind;
    this.code = code;
    this.expression = expression;
    this.field = field;
    this.reference = reference;
  }
}

/** The result of rendering a subtree whose value is `omit()`: the parent drops it. */
export const OMITTED: unique symbol = Symbol('omitted');

export type Vars = Readonly<Record<string, unknown>>;

/**
 * The evaluation is written as generators that yield after every CEL expression, so a driver can
 * return to the event loop between expressions (./evaluate.ts `evaluateSliced`); `evaluate` drains them.
 */
export type Steps<T> = Generator<undefined, T, undefined>;

export function formatPath(path: FieldPath): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'number') out += `[${step}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(step)) out += out === '' ? step : `.${step}`;
    else out += `[${JSON.stringify(step)}]`;
  }
  return out;
}

/**
 * Names the missing reference behind a pending expression: the first root reference that is not
 * bound, or the first statically selected field that is absent along a reference's path.
 */
export function missingReference(expr: CompiledExpr, vars: Vars): string | undefined {
  for (const ref of expr.refs) {
    if (ref.kind === 'iterator' || ref.kind === 'each') continue;
    if (!Object.hasOwn(vars, ref.name)) return ref.name;
  }
  for (const ref of expr.refs) {
    if (ref.optional) continue;
    let cur: unknown = vars[ref.name];
    const walked = [ref.name];
    for (const f of ref.fields) {
      walked.push(f);
      if (cur instanceof Map) {
        if (!cur.has(f)) return walked.join('.');
        cur = cur.get(f);
      } else if (isRecord(cur)) {
        if (!Object.hasOwn(cur, f)) return walked.join('.');
        cur = cur[f];
      } else {
        break;
      }
    }
  }
  return undefined;
}

function stopFor(failure: ExprFailure, expr: CompiledExpr, path: FieldPath, vars: Vars): ExprStop {
  const expression = '${' + expr.cel + '}';
  const field = formatPath(path);
  if (failure.kind === 'pending') {
    const reference = missingReference(expr, vars);
    const message =
      reference !== undefined
        ? `data pending: ${reference} is not available yet (${expression} at ${field})`
        : `data pending: ${failure.message} (${expression} at ${field})`;
    return new ExprStop('pending', RuntimeCode.DataPending, message, expression, field, reference);
  }
  return new ExprStop(
    'error',
    failure.code,
    `${failure.message} (${expression} at ${field})`,
    expression,
    field,
  );
}

/** Evaluates one expression; unbound root references are data pending without calling CEL. */
export function* evalExpr(host: EngineHost, expr: CompiledExpr, path: FieldPath, vars: Vars): Steps<unknown> {
  for (const ref of expr.refs) {
    if (ref.kind === 'iterator' || ref.kind === 'each') continue;
    if (!Object.hasOwn(vars, ref.name)) {
      const expression = '${' + expr.cel + '}';
      const field = formatPath(path);
      return stopThrow(
        new ExprStop(
          'pending',
          RuntimeCode.DataPending,
          `data pending: ${ref.name} is not available yet (${expression} at ${field})`,
          expression,
          field,
          ref.name,
        ),
      );
    }
  }
  const outcome = host.evaluate(expr.cel, vars);
  yield;
  if (!outcome.ok) return stopThrow(stopFor(outcome.failure, expr, path, vars));
  return outcome.value;
}

function stopThrow(stop: ExprStop): never {
  throw stop;
}

/** Evaluates a standalone slot (includeWhen, readyWhen, forEach, or a whole field). */
export function* evalStandalone(host: EngineHost, slot: ExprSlot, vars: Vars): Steps<unknown> {
  const expr = slot.parts[0];
  if (slot.mode !== 'standalone' || slot.parts.length !== 1 || typeof expr !== 'object') {
    throw new ExprStop(
      'error',
      RuntimeCode.Unsupported,
      `expected one standalone expression at ${formatPath(slot.path)}, found "${slot.source}"`,
      slot.source,
      formatPath(slot.path),
    );
  }
  return yield* evalExpr(host, expr, slot.path, vars);
}

/** Evaluates a slot in a payload: standalone (any type; omit/optional honoured) or string template. */
export function* evalSlot(host: EngineHost, slot: ExprSlot, vars: Vars): Steps<unknown> {
  if (slot.mode === 'standalone') {
    const v = yield* evalStandalone(host, slot, vars);
    if (host.isOmit(v)) return OMITTED;
    return isOptionalValue(v) ? unwrapOptional(v) : v;
  }
  let out = '';
  for (const part of slot.parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const v = yield* evalExpr(host, part, slot.path, vars);
    if (typeof v !== 'string') {
      const expression = '${' + part.cel + '}';
      const field = formatPath(slot.path);
      const what = host.isOmit(v) ? 'omit()' : describe(v);
      throw new ExprStop(
        'error',
        RuntimeCode.TemplatePartNotString,
        `every expression in a string template must return a string, ${expression} returned ${what} at ${field}`,
        expression,
        field,
      );
    }
    out += v;
  }
  return out;
}

export function describe(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Uint8Array) return 'bytes';
  if (isOptionalValue(v)) return 'optional';
  if (typeof v === 'object') return 'map';
  return typeof v;
}

/**
 * Renders a value tree. `onPending` (status projection) decides what a pending slot becomes: by
 * default the whole rendering stops; with `dropPending` the slot is left out like `omit()`.
 */
export function* renderTree(
  host: EngineHost,
  node: ValueNode,
  vars: Vars,
  options: { dropPending?: boolean; onDropped?: (stop: ExprStop) => void } = {},
): Steps<unknown | typeof OMITTED> {
  switch (node.t) {
    case 'literal':
      return host.fromJson(node.value);
    case 'expr':
      if (options.dropPending === true) {
        try {
          return yield* evalSlot(host, node.slot, vars);
        } catch (err) {
          if (err instanceof ExprStop && err.kind === 'pending') {
            options.onDropped?.(err);
            return OMITTED;
          }
          throw err;
        }
      }
      return yield* evalSlot(host, node.slot, vars);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, child] of node.entries) {
        const v = yield* renderTree(host, child, vars, options);
        if (v !== OMITTED) out[k] = v;
      }
      return out;
    }
    case 'list': {
      const out: unknown[] = [];
      for (const child of node.items) {
        const v = yield* renderTree(host, child, vars, options);
        if (v !== OMITTED) out.push(v);
      }
      return out;
    }
  }
}
