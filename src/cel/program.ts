import { checkParsed } from './check.ts';
import { CelCode } from './codes.ts';
import type { CelEnvironment, CelType } from './environment.ts';
import { type CelError, type CelResult, celError, toCelError } from './errors.ts';
import { type CelLimits, LimitExceeded, runMetered } from './limits.ts';
import { mapError, type ParsedExpression, parse } from './parse.ts';

/** A parsed and type-checked expression, ready for repeated evaluation ("pre-planned"). */
export interface Program {
  readonly source: string;
  readonly env: CelEnvironment;
  /** Result type from the checker. */
  readonly type: CelType;
  readonly parsed: ParsedExpression;
}

/** Parses and checks `source` in `env`. */
export function compile(source: string, env: CelEnvironment): CelResult<Program> {
  const parsed = parse(source, env);
  if (!parsed.ok) return parsed;
  const type = checkParsed(parsed.value);
  if (!type.ok) return type;
  return { ok: true, value: { source, env, type: type.value, parsed: parsed.value } };
}

/** Variables for an evaluation: plain JSON (numbers are doubles) or engine values (BigInt ints, …). */
export type Variables = Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>;

export interface EvaluateOptions {
  /**
   * Limits for this evaluation (merged over `defaultLimits`); `false` disables them (trusted callers
   * such as benchmarks). The object is read as immutable: the merged limits are cached by its identity.
   */
  readonly limits?: Partial<CelLimits> | false;
}

const NO_VARS: Variables = Object.freeze({});
const NO_OPTIONS: EvaluateOptions = Object.freeze({});

/**
 * Evaluates a program. Never throws for CEL failures: the result says whether it failed, and
 * `error.kind === 'pending'` marks data that is not there yet (design/graph.md §7.6).
 */
export function evaluate(
  program: Program,
  vars: Variables = NO_VARS,
  options: EvaluateOptions = NO_OPTIONS,
): CelResult<unknown> {
  const limits = options.limits;
  const bound = program.env.shadows.size > 0 ? withAliases(vars, program.env.shadows) : vars;
  try {
    const value =
      limits === false ? program.parsed.handle(bound) : runMetered(limits, program.parsed.handle, bound);
    return settle(value);
  } catch (err) {
    if (err instanceof LimitExceeded) return { ok: false, error: toCelError(err.abort, 'evaluate') };
    return failed(program, err);
  }
}

/** The variables with each shadowing one also under its engine alias (./shadowing.ts). */
function withAliases(vars: Variables, shadows: ReadonlyMap<string, string>): Variables {
  const get = (name: string): unknown =>
    vars instanceof Map ? vars.get(name) : (vars as Record<string, unknown>)[name];
  const has = (name: string): boolean => (vars instanceof Map ? vars.has(name) : Object.hasOwn(vars, name));
  const out = new Map<string, unknown>(vars instanceof Map ? vars : Object.entries(vars));
  for (const [name, alias] of shadows) if (has(name)) out.set(alias, get(name));
  return out;
}

function failed(program: Program, err: unknown): CelResult<unknown> {
  const declared = (name: string): boolean => program.env.isDeclared(name);
  return { ok: false, error: mapError(toCelError(err, 'evaluate', declared), program.parsed.toOriginal) };
}

function settle(value: unknown): CelResult<unknown> {
  if (value instanceof Promise) {
    // No kgraph function is asynchronous; an async result would mean a library registered one.
    value.catch(() => undefined);
    return { ok: false, error: unsupported('asynchronous CEL functions are not supported') };
  }
  return { ok: true, value };
}

function unsupported(message: string): CelError {
  return celError(CelCode.Unsupported, 'evaluation', message);
}

/** Parse + check + evaluate in one call (CLI, tests). */
export function evaluateSource(
  source: string,
  env: CelEnvironment,
  vars: Variables = {},
  options: EvaluateOptions = {},
): CelResult<{ value: unknown; type: CelType }> {
  const program = compile(source, env);
  if (!program.ok) return program;
  const result = evaluate(program.value, vars, options);
  if (!result.ok) return result;
  return { ok: true, value: { value: result.value, type: program.value.type } };
}
