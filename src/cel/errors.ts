import { CelCode, type CelCodeValue } from './codes.ts';

/**
 * What kind of failure an error is. `pending` is the soft outcome of design/graph.md §7.6:
 * the data an expression reads is not there yet. Everything else is a genuine error.
 */
export type CelErrorKind = 'syntax' | 'type' | 'pending' | 'evaluation' | 'limit';

/** A CEL failure as a value. Positions are 0-based character offsets into the expression source. */
export interface CelError {
  readonly code: CelCodeValue;
  readonly kind: CelErrorKind;
  /** One-line message without source excerpt. */
  readonly message: string;
  readonly position: number;
  readonly end: number;
  /** The engine's own error code (e.g. `no_such_key`), kept for debugging and tests. */
  readonly engineCode?: string;
}

export type CelResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: CelError };

/** Thrown by our own code inside an evaluation (limits, library helpers) and turned into a CelError. */
export class CelAbort extends Error {
  readonly code: CelCodeValue;
  readonly kind: CelErrorKind;
  constructor(code: CelCodeValue, kind: CelErrorKind, message: string) {
    super(message);
    this.name = 'CelAbort';
    this.code = code;
    this.kind = kind;
  }
}

export function celError(
  code: CelCodeValue,
  kind: CelErrorKind,
  message: string,
  position = 0,
  end = position,
): CelError {
  return { code, kind, message, position, end };
}

/** Messages that design/graph.md §7.6 requires to be treated as data pending, whatever raised them. */
const PENDING_MESSAGE = /no such key|no such attribute|no such field|index out of bounds|index out of range/i;

const PENDING_ENGINE_CODES = new Set(['no_such_key', 'index_out_of_bounds', 'index_out_of_range']);

interface EngineErrorShape {
  name: string;
  code?: unknown;
  summary?: unknown;
  message: string;
  range?: { start: number; end: number } | undefined;
}

function isEngineError(err: unknown): err is EngineErrorShape {
  return (
    err instanceof Error &&
    (err.name === 'ParseError' || err.name === 'TypeError' || err.name === 'EvaluationError') &&
    'summary' in err
  );
}

export type CelStage = 'parse' | 'check' | 'evaluate';

/**
 * Converts anything thrown by the engine (or by our functions running inside it) into a CelError.
 * `declared` tells whether an unknown variable at evaluation time is declared (then it is pending data).
 */
export function toCelError(err: unknown, stage: CelStage, declared?: (name: string) => boolean): CelError {
  if (err instanceof CelAbort) return celError(err.code, err.kind, err.message);
  if (!isEngineError(err)) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof RangeError && /call stack|Invalid (array|string|typed array) length/i.test(message)) {
      return celError(CelCode.SizeLimit, 'limit', `evaluation exceeded an engine limit: ${message}`);
    }
    return classifyMessage(message, undefined, 0, 0, stage);
  }
  const engineCode = typeof err.code === 'string' ? err.code : undefined;
  const message = typeof err.summary === 'string' ? err.summary : err.message;
  const position = err.range?.start ?? 0;
  const end = err.range?.end ?? position;
  if (err.name === 'ParseError') {
    const code = engineCode === 'limit_exceeded' ? CelCode.ParseLimit : CelCode.Syntax;
    return {
      code,
      kind: code === CelCode.ParseLimit ? 'limit' : 'syntax',
      message,
      position,
      end,
      engineCode,
    };
  }
  if (engineCode === 'unknown_variable') {
    const name = /Unknown variable: (.*)$/.exec(message)?.[1];
    if (stage === 'evaluate' && name !== undefined && declared?.(name) === true) {
      return { code: CelCode.DataPending, kind: 'pending', message, position, end, engineCode };
    }
    const kind = stage === 'evaluate' ? 'evaluation' : 'type';
    return { code: CelCode.UnknownIdentifier, kind, message, position, end, engineCode };
  }
  if (err.name === 'TypeError') {
    // cel-go's wording for a selection of an undeclared field (design/graph.md §17.2).
    const field = engineCode === 'no_such_key' ? /^No such key: (.*)$/.exec(message)?.[1] : undefined;
    const text = field !== undefined ? `undefined field '${field}'` : message;
    return { code: CelCode.Type, kind: 'type', message: text, position, end, engineCode };
  }
  return classifyMessage(message, engineCode, position, end, stage);
}

function classifyMessage(
  message: string,
  engineCode: string | undefined,
  position: number,
  end: number,
  stage: CelStage,
): CelError {
  const base = { message, position, end, ...(engineCode !== undefined ? { engineCode } : {}) };
  if ((engineCode !== undefined && PENDING_ENGINE_CODES.has(engineCode)) || PENDING_MESSAGE.test(message)) {
    return { ...base, code: CelCode.DataPending, kind: 'pending' };
  }
  const kind: CelErrorKind = stage === 'check' ? 'type' : 'evaluation';
  switch (engineCode) {
    case 'numeric_overflow':
      return { ...base, code: CelCode.Overflow, kind };
    case 'int_conversion_error':
    case 'uint_conversion_error':
    case 'invalid_duration':
    case 'invalid_timestamp':
    case 'invalid_number':
      return { ...base, code: CelCode.Conversion, kind };
    case 'division_by_zero':
    case 'modulo_by_zero':
      return { ...base, code: CelCode.DivisionByZero, kind };
    case 'no_such_overload':
      return { ...base, code: CelCode.NoSuchOverload, kind };
    default:
      if (/overflow|out of range/i.test(message)) return { ...base, code: CelCode.Overflow, kind };
      if (/no such overload|no matching overload/i.test(message)) {
        return { ...base, code: CelCode.NoSuchOverload, kind };
      }
      return { ...base, code: stage === 'check' ? CelCode.Type : CelCode.Evaluation, kind };
  }
}

/** Renders an error under its source line with a caret, for terminals. */
export function formatWithCaret(source: string, error: CelError): string {
  const lineStart = source.lastIndexOf('\n', Math.max(0, error.position - 1)) + 1;
  const nl = source.indexOf('\n', error.position);
  const lineEnd = nl === -1 ? source.length : nl;
  const line = source.slice(lineStart, lineEnd);
  const col = Math.max(0, Math.min(error.position - lineStart, line.length));
  const width = Math.max(1, Math.min(error.end, lineEnd) - error.position);
  return `${error.code}: ${error.message}\n  ${line}\n  ${' '.repeat(col)}${'^'.repeat(width)}`;
}
