import type { CelEnvironment, CelType } from './environment.ts';
import { type CelResult, toCelError } from './errors.ts';
import { validateMapLiterals } from './literals.ts';
import { mapError, type ParsedExpression, parse } from './parse.ts';

/** The engine abbreviates `list<dyn>`/`map<dyn, dyn>` in check results; we keep full type names. */
export function normalizeTypeName(name: string): CelType {
  if (name === 'list') return 'list<dyn>';
  if (name === 'map') return 'map<dyn, dyn>';
  return name;
}

/**
 * Type-checks an expression in `env` and returns its result type. A parsed expression from another
 * environment is re-parsed in `env` (the engine annotates ASTs with the types of one environment).
 */
export function check(source: string | ParsedExpression, env: CelEnvironment): CelResult<CelType> {
  let parsed: ParsedExpression;
  if (typeof source === 'string' || source.env !== env) {
    const result = parse(typeof source === 'string' ? source : source.source, env);
    if (!result.ok) return result;
    parsed = result.value;
  } else {
    parsed = source;
  }
  return checkParsed(parsed);
}

export function checkParsed(parsed: ParsedExpression): CelResult<CelType> {
  let result: ReturnType<ParsedExpression['handle']['check']>;
  try {
    result = parsed.handle.check();
  } catch (err) {
    return { ok: false, error: mapError(toCelError(err, 'check'), parsed.toOriginal) };
  }
  if (result.valid && result.type !== undefined) {
    const literalError = validateMapLiterals(parsed.ast);
    if (literalError) return { ok: false, error: mapError(literalError, parsed.toOriginal) };
    return { ok: true, value: normalizeTypeName(result.type) };
  }
  return { ok: false, error: mapError(toCelError(result.error, 'check'), parsed.toOriginal) };
}
