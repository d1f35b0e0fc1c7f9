import type { Environment } from '../celJs.ts';
import { chargeCost } from '../limits.ts';
import { compareValues } from './compare.ts';
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
import { concrete } from './iteration.ts';

/**
 * cel-go lists extension `l.sortBy(v, keyExpr)`: a stable sort of `l` by the key computed for each
 * element. Keys must be mutually comparable (numbers, strings, bools, bytes, timestamps, durations).
 */
interface SortByMacro {
  readonly receiver: Ast;
  readonly variable: string;
  readonly key: Ast;
  elementType?: TypeDecl;
  typeCheck(checker: Checker, macro: SortByMacro, ctx: CheckContext): TypeDecl;
  evaluate(ev: Evaluator, macro: SortByMacro, ctx: CheckContext): unknown;
}

const COMPARABLE = new Set([
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'bytes',
  'dyn',
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
]);

function typeCheck(checker: Checker, macro: SortByMacro, ctx: CheckContext): TypeDecl {
  const listType = checker.check(macro.receiver, ctx);
  if (listType.kind !== 'list' && listType.kind !== 'dyn') {
    throw checker.createError(
      'invalid_macro_argument',
      `sortBy() must be called on a list, got '${checker.formatType(listType)}'`,
      macro.receiver,
    );
  }
  const elementType = listType.kind === 'list' ? concrete(checker, listType.valueType) : checker.dynType;
  macro.elementType = elementType;
  const keyType = checker.check(macro.key, ctx.forkWithVariable(macro.variable, elementType));
  if (!COMPARABLE.has(keyType.kind === 'dyn' ? 'dyn' : keyType.name)) {
    throw checker.createError(
      'invalid_macro_argument',
      `sortBy() key must be a comparable type, got '${checker.formatType(keyType)}'`,
      macro.key,
    );
  }
  return listType.kind === 'list' ? listType : checker.registry.getListType(checker.dynType);
}

function evaluate(ev: Evaluator, macro: SortByMacro, ctx: CheckContext): unknown {
  const list = ev.run(macro.receiver, ctx);
  if (!Array.isArray(list)) {
    throw ev.createError(
      'no_such_overload',
      `sortBy() must be called on a list, got '${ev.debugType(list).name}'`,
    );
  }
  const dyn = { kind: 'dyn', name: 'dyn' } as TypeDecl;
  const varCtx = ctx.forkWithVariable(macro.variable, macro.elementType ?? dyn);
  const keyed = list.map((element, index) => ({
    element,
    index,
    key: ev.run(macro.key, varCtx.setIterValue(element, ev)),
  }));
  chargeCost(Math.ceil(list.length * Math.log2(list.length + 1)));
  let failure: Error | undefined;
  keyed.sort((a, b) => {
    const c = compareValues(a.key, b.key);
    if (c === undefined) {
      failure ??= ev.createError(
        'no_such_overload',
        `sortBy() keys are not comparable: '${ev.debugType(a.key).name}' and '${ev.debugType(b.key).name}'`,
        macro.key,
      );
      return a.index - b.index;
    }
    return c || a.index - b.index;
  });
  if (failure) throw failure;
  return keyed.map((k) => k.element);
}

export function installSortBy(engine: Environment): void {
  const expand = ({ args, receiver, ast }: MacroInput): SortByMacro => {
    if (receiver === null) throw macroParseError('sortBy() must be called on a list', ast);
    const variable = identifierOf(args[0], 'sortBy() invalid iteration variable');
    return { receiver, variable, key: args[1] as Ast, typeCheck, evaluate };
  };
  engine.registerFunction('list.sortBy(ast, ast): list<dyn>', expand);
}
