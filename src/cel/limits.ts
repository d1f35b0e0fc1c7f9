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
  readonly deadline: number;
  readonly limits: CelLimits;
  /** Units charged since the clock was last read (the clock is read every 4096 units). */
  sinceClock: number;
  /** Set once a limit fired; an error swallowed by `||`, `&&` or a quantifier must still fail the evaluation. */
  exceeded: CelAbort | undefined;
}

let active: ActiveBudget | undefined;

export function createBudget(limits: CelLimits): ActiveBudget {
  return {
    remaining: limits.maxCost,
    deadline: performance.now() + limits.maxDurationMs,
    limits,
    sinceClock: 0,
    exceeded: undefined,
  };
}

/** Runs `fn` under `budget`; nested runs (a function evaluating CEL) keep their own budget. */
export function runWithBudget<T>(budget: ActiveBudget, fn: () => T): T {
  const previous = active;
  active = budget;
  try {
    return fn();
  } finally {
    active = previous;
  }
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
  if (budget.sinceClock >= 4096) checkClock(budget);
}

function checkClock(budget: ActiveBudget): void {
  budget.sinceClock = 0;
  if (performance.now() > budget.deadline) {
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
  if (++budget.sinceClock >= 4096) checkClock(budget);
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
    if (typeof result === 'string' || Array.isArray(result)) checkSize(result);
    return result;
  };
  instrumented = true;
}
