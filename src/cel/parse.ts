import type { ASTNode } from './celJs.ts';
import { CelCode } from './codes.ts';
import type { CelEnvironment } from './environment.ts';
import { baseEnvironment } from './environment.ts';
import { type CelError, type CelResult, celError, toCelError } from './errors.ts';
import { astDepthExceeded, checkSourceNesting, MAX_NESTING_DEPTH, type NestingExcess } from './nesting.ts';
import { rewriteSource } from './rewrite.ts';
import { globalMembers, renameShadowed } from './shadowing.ts';

type EngineParseResult = ReturnType<CelEnvironment['engine']['parse']>;

/**
 * A parsed expression. Parsing expands macros with the environment's registry, and checking
 * annotates the AST in place, so a parsed expression belongs to the environment it was parsed in.
 * The engine parses `engineSource`, our rewrite of `source` (./rewrite.ts); AST positions are in
 * `engineSource` coordinates and `toOriginal` maps them back.
 */
export interface ParsedExpression {
  readonly source: string;
  readonly engineSource: string;
  readonly env: CelEnvironment;
  /** The engine AST; walk it with ./references.ts rather than depending on its shape. */
  readonly ast: ASTNode;
  /** @internal engine handle (evaluate/check) */
  readonly handle: EngineParseResult;
  toOriginal(position: number): number;
}

/** Moves an error's range from engine-source coordinates to the user's source. */
export function mapError(error: CelError, toOriginal: (p: number) => number): CelError {
  const position = toOriginal(error.position);
  const end = error.end > error.position ? Math.max(position, toOriginal(error.end - 1) + 1) : position;
  return { ...error, position, end };
}

function tooDeep(excess: NestingExcess): CelError {
  return celError(
    CelCode.ParseLimit,
    'syntax',
    `expression nested too deeply: more than ${MAX_NESTING_DEPTH} levels`,
    excess.position,
    excess.position + 1,
  );
}

export function parse(source: string, env: CelEnvironment = baseEnvironment()): CelResult<ParsedExpression> {
  // Before the rewrite and the engine: both recurse over brackets (see ./nesting.ts).
  const nested = checkSourceNesting(source);
  if (nested !== undefined) return { ok: false, error: tooDeep(nested) };
  const plain = rewriteSource(source);
  const rewritten =
    env.shadows.size > 0
      ? renameShadowed(plain, env.shadows, globalMembers(baseEnvironment().engine))
      : plain;
  try {
    const handle = env.engine.parse(rewritten.source);
    const deep = astDepthExceeded(handle.ast);
    if (deep !== undefined) return { ok: false, error: mapError(tooDeep(deep), rewritten.toOriginal) };
    return {
      ok: true,
      value: {
        source,
        engineSource: rewritten.source,
        env,
        ast: handle.ast,
        handle,
        toOriginal: rewritten.toOriginal,
      },
    };
  } catch (err) {
    const error = toCelError(err, 'parse');
    return { ok: false, error: rewritten.changed ? mapError(error, rewritten.toOriginal) : error };
  }
}
