import { type Environment, Optional } from '../celJs.ts';
import { durationNanos } from './compare.ts';
import {
  type Ast,
  type CheckContext,
  type Checker,
  type Evaluator,
  identifierOf,
  type MacroInput,
  macroParseError,
  type TypeDecl,
} from './engineTypes.ts';

/** cel-go optional library members the engine lacks: `optMap`, `optFlatMap`, `optional.ofNonZeroValue`. */
interface OptMacro {
  readonly flat: boolean;
  readonly receiver: Ast;
  readonly variable: string;
  readonly body: Ast;
  valueType?: TypeDecl;
  typeCheck(checker: Checker, macro: OptMacro, ctx: CheckContext): TypeDecl;
  evaluate(ev: Evaluator, macro: OptMacro, ctx: CheckContext): unknown;
}

function name(macro: OptMacro): string {
  return macro.flat ? 'optFlatMap' : 'optMap';
}

function typeCheck(checker: Checker, macro: OptMacro, ctx: CheckContext): TypeDecl {
  const t = checker.check(macro.receiver, ctx);
  if (t.kind !== 'optional' && t.kind !== 'dyn') {
    throw checker.createError(
      'invalid_macro_argument',
      `${name(macro)}() must be called on an optional, got '${checker.formatType(t)}'`,
      macro.receiver,
    );
  }
  const valueType = t.kind === 'optional' ? (t.valueType ?? checker.dynType) : checker.dynType;
  macro.valueType = valueType;
  const bodyType = checker.check(macro.body, ctx.forkWithVariable(macro.variable, valueType));
  if (!macro.flat) return checker.registry.getOptionalType(bodyType);
  if (bodyType.kind === 'optional') return bodyType;
  if (bodyType.kind === 'dyn') return checker.registry.getOptionalType(checker.dynType);
  throw checker.createError(
    'invalid_macro_argument',
    `optFlatMap() expression must return an optional, got '${checker.formatType(bodyType)}'`,
    macro.body,
  );
}

function evaluate(ev: Evaluator, macro: OptMacro, ctx: CheckContext): unknown {
  const opt = ev.run(macro.receiver, ctx);
  if (!(opt instanceof Optional)) {
    throw ev.createError(
      'no_such_overload',
      `${name(macro)}() must be called on an optional, got '${ev.debugType(opt).name}'`,
      macro.receiver,
    );
  }
  if (!opt.hasValue()) return Optional.none();
  const dyn = { kind: 'dyn', name: 'dyn' } as TypeDecl;
  const varCtx = ctx.forkWithVariable(macro.variable, macro.valueType ?? dyn).setIterValue(opt.value(), ev);
  const result = ev.run(macro.body, varCtx);
  if (!macro.flat) return Optional.of(result);
  if (result instanceof Optional) return result;
  throw ev.createError(
    'no_such_overload',
    `optFlatMap() expression must return an optional, got '${ev.debugType(result).name}'`,
    macro.body,
  );
}

/** Whether `v` is the zero value of its type (cel-go's IsZeroValue). */
export function isZeroValue(v: unknown): boolean {
  if (v === null || v === false || v === 0 || v === 0n || v === '') return true;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length === 0;
  if (v instanceof Map || v instanceof Set) return v.size === 0;
  if (v instanceof Date) return v.getTime() === 0;
  if (v instanceof Optional) return !v.hasValue();
  const nanos = durationNanos(v);
  if (nanos !== undefined) return nanos === 0n;
  if (typeof v === 'object' && v.constructor?.name === 'UnsignedInt')
    return (v as { value: bigint }).value === 0n;
  if (typeof v === 'object') {
    const proto = Object.getPrototypeOf(v);
    if (proto === null || proto === Object.prototype) return Object.keys(v).length === 0;
  }
  return false;
}

export function installOptionalExtras(engine: Environment): void {
  const expander =
    (flat: boolean) =>
    ({ args, receiver, ast }: MacroInput): OptMacro => {
      const fn = flat ? 'optFlatMap' : 'optMap';
      if (receiver === null) throw macroParseError(`${fn}() must be called on an optional`, ast);
      const variable = identifierOf(args[0], `${fn}() invalid variable`);
      return { flat, receiver, variable, body: args[1] as Ast, typeCheck, evaluate };
    };
  engine.registerFunction('optional.optMap(ast, ast): optional<dyn>', expander(false));
  engine.registerFunction('optional.optFlatMap(ast, ast): optional<dyn>', expander(true));
  engine.registerFunction(
    'OptionalNamespace.ofNonZeroValue(A): optional<A>',
    (_ns: unknown, value: unknown) => (isZeroValue(value) ? Optional.none() : Optional.of(value)),
  );
}
