import type { Environment } from '../celJs.ts';
import { CelAbort } from '../errors.ts';
import {
  type Ast,
  type CheckContext,
  type Checker,
  type Evaluator,
  identifierOf,
  isDynOrBool,
  type MacroInput,
  macroParseError,
  type TypeDecl,
  type VariableContext,
} from './engineTypes.ts';
import { buildMap, iterationPairs, iterationTypes, mapHasKey } from './iteration.ts';

/**
 * cel-go's two-variable comprehensions (ext.TwoVarComprehensions), which the engine lacks:
 * `all(k, v, p)`, `exists(k, v, p)`, `existsOne(k, v, p)` (and `existsOne(x, p)`),
 * `transformList(i, v, [filter,] e)`, `transformMap(k, v, [filter,] e)`,
 * `transformMapEntry(k, v, [filter,] e)`. Over a list the first variable is the index, over a map the key.
 */

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

interface TwoVarMacro {
  readonly kind: Kind;
  readonly ast: Ast;
  readonly receiver: Ast;
  readonly keyVar: string | undefined;
  readonly valueVar: string;
  readonly filter: Ast | undefined;
  readonly body: Ast;
  keyType?: TypeDecl;
  valueType?: TypeDecl;
  typeCheck(checker: Checker, macro: TwoVarMacro, ctx: CheckContext): TypeDecl;
  evaluate(ev: Evaluator, macro: TwoVarMacro, ctx: CheckContext): unknown;
}

function bodyContext(macro: TwoVarMacro, ctx: CheckContext, keyType: TypeDecl, valueType: TypeDecl) {
  const keyCtx = macro.keyVar === undefined ? undefined : ctx.forkWithVariable(macro.keyVar, keyType);
  const valueCtx = (keyCtx ?? ctx).forkWithVariable(macro.valueVar, valueType);
  return { keyCtx, valueCtx };
}

function typeCheck(checker: Checker, macro: TwoVarMacro, ctx: CheckContext): TypeDecl {
  const [keyType, valueType] = iterationTypes(checker, macro.receiver, ctx);
  macro.keyType = keyType;
  macro.valueType = valueType;
  const { valueCtx } = bodyContext(macro, ctx, keyType, valueType);
  if (macro.filter) {
    const f = checker.check(macro.filter, valueCtx);
    if (!isDynOrBool(f)) {
      throw checker.createError(
        'invalid_macro_argument',
        `${macro.kind}() filter must return bool, got '${checker.formatType(f)}'`,
        macro.filter,
      );
    }
  }
  const bodyType = checker.check(macro.body, valueCtx);
  switch (macro.kind) {
    case 'all':
    case 'exists':
    case 'existsOne':
      if (!isDynOrBool(bodyType)) {
        throw checker.createError(
          'invalid_macro_argument',
          `${macro.kind}() predicate must return bool, got '${checker.formatType(bodyType)}'`,
          macro.body,
        );
      }
      return checker.boolType;
    case 'transformList':
      return checker.registry.getListType(bodyType);
    case 'transformMap':
      return checker.registry.getMapType(keyType, bodyType);
    case 'transformMapEntry':
      if (bodyType.kind === 'map') return bodyType;
      if (bodyType.kind === 'dyn') return checker.registry.getMapType(checker.dynType, checker.dynType);
      throw checker.createError(
        'invalid_macro_argument',
        `transformMapEntry() expression must return a map, got '${checker.formatType(bodyType)}'`,
        macro.body,
      );
  }
}

function predicateError(ev: Evaluator, macro: TwoVarMacro, value: unknown): Error {
  return ev.createError(
    'no_such_overload',
    `${macro.kind}() predicate must return bool, got '${ev.debugType(value).name}'`,
    macro.body,
  );
}

function evaluate(ev: Evaluator, macro: TwoVarMacro, ctx: CheckContext): unknown {
  const dyn = { kind: 'dyn', name: 'dyn' } as TypeDecl;
  const { keyCtx, valueCtx } = bodyContext(macro, ctx, macro.keyType ?? dyn, macro.valueType ?? dyn);
  const pairs = iterationPairs(ev, ev.run(macro.receiver, ctx), macro.receiver);
  const bind = (k: unknown, v: unknown): VariableContext => {
    keyCtx?.setIterValue(k, ev);
    return valueCtx.setIterValue(v, ev);
  };
  const passes = (c: VariableContext): boolean => {
    if (!macro.filter) return true;
    const f = ev.run(macro.filter, c);
    if (typeof f !== 'boolean') throw predicateError(ev, macro, f);
    return f;
  };
  switch (macro.kind) {
    case 'all':
    case 'exists': {
      // Like cel-go: an error is absorbed if another element decides the result.
      const decisive = macro.kind === 'exists';
      let error: unknown;
      for (const [k, v] of pairs) {
        let r: unknown;
        try {
          r = ev.run(macro.body, bind(k, v));
        } catch (err) {
          if (err instanceof CelAbort) throw err;
          error ??= err;
          continue;
        }
        if (r === decisive) return decisive;
        if (typeof r !== 'boolean') error ??= predicateError(ev, macro, r);
      }
      if (error !== undefined) throw error;
      return !decisive;
    }
    case 'existsOne': {
      let count = 0;
      for (const [k, v] of pairs) {
        const r = ev.run(macro.body, bind(k, v));
        if (typeof r !== 'boolean') throw predicateError(ev, macro, r);
        if (r) count++;
      }
      return count === 1;
    }
    case 'transformList': {
      const out: unknown[] = [];
      for (const [k, v] of pairs) {
        const c = bind(k, v);
        if (passes(c)) out.push(ev.run(macro.body, c));
      }
      return out;
    }
    case 'transformMap': {
      const entries: Array<[unknown, unknown]> = [];
      for (const [k, v] of pairs) {
        const c = bind(k, v);
        if (passes(c)) entries.push([k, ev.run(macro.body, c)]);
      }
      return buildMap(entries);
    }
    case 'transformMapEntry': {
      const entries: Array<[unknown, unknown]> = [];
      let acc: unknown = buildMap([]);
      for (const [k, v] of pairs) {
        const c = bind(k, v);
        if (!passes(c)) continue;
        const produced = ev.run(macro.body, c);
        for (const [nk, nv] of iterationPairs(ev, produced, macro.body)) {
          if (Array.isArray(produced)) {
            throw ev.createError(
              'no_such_overload',
              'transformMapEntry() expression must return a map',
              macro.body,
            );
          }
          if (mapHasKey(acc, nk)) {
            throw ev.createError(
              'duplicate_key',
              `insert failed: key ${typeof nk === 'string' ? JSON.stringify(nk) : String(nk)} already exists`,
              macro.body,
            );
          }
          entries.push([nk, nv]);
          acc = buildMap(entries);
        }
      }
      return buildMap(entries);
    }
  }
}

function expander(kind: Kind, variables: 1 | 2, hasFilter: boolean) {
  return ({ ast, args, receiver }: MacroInput): TwoVarMacro => {
    if (receiver === null) throw macroParseError(`${kind}() must be called on a list or map`, ast);
    const message = `${kind}() invalid iteration variable`;
    const keyVar = variables === 2 ? identifierOf(args[0], message) : undefined;
    const valueVar = identifierOf(args[variables - 1], message);
    if (keyVar !== undefined && keyVar === valueVar) {
      throw macroParseError(`${kind}() iteration variables must differ, both are '${keyVar}'`, args[1]);
    }
    const filter = hasFilter ? args[variables] : undefined;
    const body = args[args.length - 1] as Ast;
    return { kind, ast, receiver, keyVar, valueVar, filter, body, typeCheck, evaluate };
  };
}

export function installTwoVariableComprehensions(engine: Environment): void {
  const reg = (signature: string, handler: (input: MacroInput) => TwoVarMacro): void => {
    engine.registerFunction(signature, handler);
  };
  reg('list.all(ast, ast, ast): bool', expander('all', 2, false));
  reg('list.exists(ast, ast, ast): bool', expander('exists', 2, false));
  reg('list.existsOne(ast, ast, ast): bool', expander('existsOne', 2, false));
  reg('list.existsOne(ast, ast): bool', expander('existsOne', 1, false));
  reg('list.transformList(ast, ast, ast): list<dyn>', expander('transformList', 2, false));
  reg('list.transformList(ast, ast, ast, ast): list<dyn>', expander('transformList', 2, true));
  reg('list.transformMap(ast, ast, ast): map<dyn, dyn>', expander('transformMap', 2, false));
  reg('list.transformMap(ast, ast, ast, ast): map<dyn, dyn>', expander('transformMap', 2, true));
  reg('list.transformMapEntry(ast, ast, ast): map<dyn, dyn>', expander('transformMapEntry', 2, false));
  reg('list.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>', expander('transformMapEntry', 2, true));
}
