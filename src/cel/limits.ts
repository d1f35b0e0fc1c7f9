import { CelCode } from './codes.ts';
import { CelAbort } from './errors.ts';

/**
 * Evaluation limits. The engine has no cost model, so our layer counts evaluation steps (one per AST
 * node evaluated, comprehension iterations included) and checks the clock every few thousand steps.
 * Because evaluation is synchronous, a single native operation cannot be interrupted; intermediate
 * strings and lists are therefore capped too, so that doubling tricks fail early.
 */
export interface CelLimits {
  /** Maximum evaluation steps per evaluation (roughly: AST nodes visited). */
  readonly maxCost: number;
  /** Wall-clock budget per evaluation, in milliseconds. */
  readonly maxDurationMs: number;
  /** Maximum length of any intermediate string, in UTF-16 code units. */
  readonly maxStringLength: number;
  /** Maximum length of any intermediate list. */
  readonly maxListLength: number;
  /** Maximum number of entries of a map a function produces. */
  readonly maxMapSize: number;
}

export const defaultLimits: CelLimits = Object.freeze({
  maxCost: 1_000_000,
  maxDurationMs: 1_000,
  maxStringLength: 4 * 1024 * 1024,
  maxListLength: 100_000,
  maxMapSize: 100_000,
});

/** A budget in use by one running evaluation. */
export interface ActiveBudget {
  remaining: number;
  /** When the wall-clock budget runs out; NaN until the clock is first read (see `createBudget`). */
  deadline: number;
  readonly limits: CelLimits;
  /** Units charged since the clock was last read (the clock is read every 4096 units). */
  sinceClock: number;
  /** Set once a limit fired; an error swallowed by `||`, `&&` or a quantifier must still fail the evaluation. */
  exceeded: CelAbort | undefined;
}

/** Units between two reads of the clock. */
const CLOCK_EVERY = 4096;
/**
 * Units into an evaluation at which the clock is first read, starting the wall-clock budget. Reading
 * the clock costs as much as a small evaluation, and most evaluations finish in a few dozen units, so
 * the clock is not read at the start: the budget starts at the first read, at most this many units
 * (≈ 0.1 ms by the cost model, ./costs.ts) after the evaluation began.
 */
export const CLOCK_START_UNITS = 128;

const clock: { now(): number } = globalThis.performance;

let active: ActiveBudget | undefined;

/**
 * A fresh budget. With a finite wall-clock budget the clock is first read after
 * `CLOCK_START_UNITS` units (which starts it), then every `CLOCK_EVERY` units; without one it is never read.
 */
export function createBudget(limits: CelLimits): ActiveBudget {
  return {
    remaining: limits.maxCost,
    deadline: Number.NaN,
    limits,
    sinceClock:
      limits.maxDurationMs === Number.POSITIVE_INFINITY
        ? Number.NEGATIVE_INFINITY
        : CLOCK_EVERY - CLOCK_START_UNITS,
    exceeded: undefined,
  };
}

const mergedLimits = new WeakMap<Partial<CelLimits>, CelLimits>();

/** `defaultLimits` overridden by `partial`; cached by the identity of `partial` (read as immutable). */
export function resolveLimits(partial: Partial<CelLimits> | undefined): CelLimits {
  if (partial === undefined) return defaultLimits;
  let merged = mergedLimits.get(partial);
  if (merged === undefined) {
    merged = Object.freeze({ ...defaultLimits, ...partial });
    mergedLimits.set(partial, merged);
  }
  return merged;
}

/** Thrown by `runMetered` when a limit fired, also when the evaluation swallowed the error. */
export class LimitExceeded {
  constructor(readonly abort: CelAbort) {}
}

/**
 * Runs `fn(arg)` under a fresh budget and size-checks its value; nested runs (a function evaluating
 * CEL) keep their own budget. Throws `LimitExceeded` when a limit fired, else what `fn` threw.
 * One call per evaluation and no closure: the evaluation's fixed cost is this and the budget object.
 */
export function runMetered<A>(
  partial: Partial<CelLimits> | undefined,
  fn: (arg: A) => unknown,
  arg: A,
): unknown {
  const budget = createBudget(resolveLimits(partial));
  const previous = active;
  active = budget;
  let value: unknown;
  try {
    value = fn(arg);
    // The root is not evaluated through the instrumented run(): its value is checked here.
    checkProduced(value);
  } catch (err) {
    active = previous;
    if (budget.exceeded) throw new LimitExceeded(budget.exceeded);
    throw err;
  }
  active = previous;
  // A limit error swallowed by `||`, `&&` or a quantifier still fails the evaluation.
  if (budget.exceeded) throw new LimitExceeded(budget.exceeded);
  return value;
}

function fail(budget: ActiveBudget, abort: CelAbort): never {
  budget.exceeded ??= abort;
  throw budget.exceeded;
}

/**
 * Charges `units` of cost to the running evaluation, if any. Library functions whose work is not
 * visible as AST steps (lists.range(n), string building, sorting) call this before doing the work.
 */
export function chargeCost(units: number): void {
  const budget = active;
  if (budget === undefined) return;
  if (budget.exceeded) throw budget.exceeded;
  budget.remaining -= units;
  if (budget.remaining < 0) {
    fail(
      budget,
      new CelAbort(
        CelCode.CostLimit,
        'limit',
        `cost limit exceeded: more than ${budget.limits.maxCost} steps`,
      ),
    );
  }
  budget.sinceClock += units;
  if (budget.sinceClock >= CLOCK_EVERY) checkClock(budget);
}

function checkClock(budget: ActiveBudget): void {
  budget.sinceClock = 0;
  const now = clock.now();
  if (Number.isNaN(budget.deadline)) {
    budget.deadline = now + budget.limits.maxDurationMs;
    return;
  }
  if (now > budget.deadline) {
    fail(
      budget,
      new CelAbort(
        CelCode.TimeLimit,
        'limit',
        `time limit exceeded: evaluation ran longer than ${budget.limits.maxDurationMs} ms`,
      ),
    );
  }
}

/** Whether an evaluation with limits is running (the cost model charges only then). */
export function hasActiveBudget(): boolean {
  return active !== undefined;
}

function sizeAbort(budget: ActiveBudget, what: string, size: number, limit: number): never {
  fail(
    budget,
    new CelAbort(CelCode.SizeLimit, 'limit', `size limit exceeded: ${what} of ${size} (limit ${limit})`),
  );
}

/** Fails before a list of `n` elements is built when it would exceed the list limit. */
export function checkListLength(n: number): void {
  const budget = active;
  if (budget !== undefined && n > budget.limits.maxListLength)
    sizeAbort(budget, 'list', n, budget.limits.maxListLength);
}

/** Fails before a string of `n` UTF-16 units is built when it would exceed the string limit. */
export function checkStringLength(n: number): void {
  const budget = active;
  if (budget !== undefined && n > budget.limits.maxStringLength)
    sizeAbort(budget, 'string', n, budget.limits.maxStringLength);
}

/** Size check of a value a function produced: strings, bytes, lists and maps. */
export function checkProduced(value: unknown): void {
  const budget = active;
  if (budget === undefined) return;
  if (typeof value === 'string' || Array.isArray(value)) {
    checkSize(value);
  } else if (value instanceof Uint8Array) {
    if (value.length > budget.limits.maxStringLength)
      sizeAbort(budget, 'bytes', value.length, budget.limits.maxStringLength);
  } else if (value instanceof Map) {
    if (value.size > budget.limits.maxMapSize) sizeAbort(budget, 'map', value.size, budget.limits.maxMapSize);
  } else if (
    value !== null &&
    typeof value === 'object' &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    let n = 0;
    for (const _ in value)
      if (++n > budget.limits.maxMapSize) sizeAbort(budget, 'map', n, budget.limits.maxMapSize);
  }
}

/** Checks a value produced during evaluation against the size limits. */
export function checkSize(value: unknown): void {
  const budget = active;
  if (budget === undefined) return;
  if (typeof value === 'string') {
    if (value.length > budget.limits.maxStringLength) {
      fail(
        budget,
        new CelAbort(
          CelCode.SizeLimit,
          'limit',
          `size limit exceeded: string of ${value.length} characters (limit ${budget.limits.maxStringLength})`,
        ),
      );
    }
  } else if (Array.isArray(value) && value.length > budget.limits.maxListLength) {
    fail(
      budget,
      new CelAbort(
        CelCode.SizeLimit,
        'limit',
        `size limit exceeded: list of ${value.length} elements (limit ${budget.limits.maxListLength})`,
      ),
    );
  }
}

/** One step; called by the instrumented evaluator for every AST node evaluated. */
function step(budget: ActiveBudget): void {
  if (budget.exceeded) throw budget.exceeded;
  if (--budget.remaining < 0) {
    fail(
      budget,
      new CelAbort(
        CelCode.CostLimit,
        'limit',
        `cost limit exceeded: more than ${budget.limits.maxCost} steps`,
      ),
    );
  }
  if (++budget.sinceClock >= CLOCK_EVERY) checkClock(budget);
}

type RunFn = (this: unknown, ast: unknown, ctx: unknown) => unknown;
interface EvaluatorPrototype {
  run: RunFn;
}

let instrumented = false;

/**
 * Wraps the engine's evaluator `run` (the one entry every AST node is evaluated through) so that
 * steps are counted and results size-checked while a budget is active. The prototype is shared by
 * all environments, so this happens once per process. Without an active budget the cost is one
 * branch per node.
 */
export function instrumentEvaluator(evaluator: object): void {
  if (instrumented) return;
  const proto = Object.getPrototypeOf(evaluator) as EvaluatorPrototype | null;
  if (proto === null || typeof proto.run !== 'function') {
    throw new Error('cannot instrument the CEL evaluator: unexpected engine internals (run() not found)');
  }
  const original = proto.run;
  proto.run = function run(this: unknown, ast: unknown, ctx: unknown): unknown {
    const budget = active;
    if (budget === undefined) return original.call(this, ast, ctx);
    step(budget);
    const result = original.call(this, ast, ctx);
    if (typeof result === 'string') {
      if (result.length > budget.limits.maxStringLength) checkSize(result);
    } else if (Array.isArray(result) && result.length > budget.limits.maxListLength) checkSize(result);
    return result;
  };
  instrumented = true;
}

type Handler = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Wraps a function or operator handler so that, while a budget is active, `cost(args) - 1` units are
 * charged before it runs (the evaluator already counted one step for the call node: that pays the
 * formula's "1 +") and what it produced is charged (`produced(result)`) and size-checked before
 * anything uses it; returning (part of) an argument produces nothing new. Without an active budget
 * (trusted callers) the wrapper only forwards the call. Used by the cost model (./costModel.ts).
 * `binary`: the handler of a binary operator, always called as (left, right, ast, evaluator); its
 * wrapper takes those four parameters (no rest array) and gives the formula a reused pair.
 */
export function meteredHandler(
  original: Handler,
  cost: (args: readonly unknown[]) => number,
  produced: (result: unknown) => number,
  binary: boolean,
): Handler {
  if (binary) {
    const pair: unknown[] = [undefined, undefined];
    return function chargedBinary(this: unknown, a: unknown, b: unknown, ast: unknown, ev: unknown): unknown {
      const budget = active;
      if (budget === undefined) return original.call(this, a, b, ast, ev);
      // Formulas are pure and do not re-enter, so one pair per handler is enough.
      pair[0] = a;
      pair[1] = b;
      const units = cost(pair) - 1;
      pair[0] = pair[1] = undefined;
      if (units > 0) chargeCost(units);
      const result = original.call(this, a, b, ast, ev);
      if (
        result !== null &&
        (typeof result === 'object' || typeof result === 'string') &&
        result !== a &&
        result !== b
      ) {
        chargeCost(produced(result));
        checkProduced(result);
      }
      return result;
    };
  }
  return function charged(this: unknown, ...args: unknown[]): unknown {
    if (active === undefined) return original.apply(this, args);
    const units = cost(args) - 1;
    if (units > 0) chargeCost(units);
    const result = original.apply(this, args);
    if (
      result !== null &&
      (typeof result === 'object' || typeof result === 'string') &&
      !args.includes(result)
    ) {
      chargeCost(produced(result));
      checkProduced(result);
    }
    return result;
  };
}
