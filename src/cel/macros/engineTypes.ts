import { type ASTNode, ParseError } from '../celJs.ts';

/**
 * The parts of the engine's macro API our macros use (the engine ships no types for them).
 * A macro registered with `ast` parameters receives the call's AST and returns
 * `{ typeCheck(checker, macro, ctx), evaluate(evaluator, macro, ctx) }`.
 */
export interface Ast {
  readonly op: string;
  readonly args: unknown;
  readonly start: number;
  readonly end: number;
}

export interface TypeDecl {
  readonly kind: string;
  readonly name: string;
  readonly valueType?: TypeDecl;
  readonly keyType?: TypeDecl;
}

export interface Checker {
  check(ast: Ast, ctx: CheckContext): TypeDecl;
  getType(name: string): TypeDecl;
  formatType(type: TypeDecl): string;
  createError(code: string, message: string, node?: Ast): Error;
  readonly dynType: TypeDecl;
  readonly boolType: TypeDecl;
  readonly intType: TypeDecl;
  readonly registry: {
    getListType(type: TypeDecl): TypeDecl;
    getMapType(key: TypeDecl, value: TypeDecl): TypeDecl;
    getOptionalType(type: TypeDecl): TypeDecl;
  };
}

export interface CheckContext {
  forkWithVariable(name: string, type: TypeDecl): VariableContext;
}

export interface VariableContext extends CheckContext {
  setIterValue(value: unknown, evaluator: Evaluator): VariableContext;
}

export interface Evaluator {
  run(ast: Ast, ctx: CheckContext): unknown;
  createError(code: string, message: string, node?: Ast): Error;
  debugType(value: unknown): TypeDecl;
}

export interface MacroInput {
  readonly ast: Ast;
  readonly args: readonly Ast[];
  readonly receiver: Ast | null;
}

/** A parse error at `node`, for macro expanders (they run while parsing). */
export function macroParseError(message: string, node: Ast | undefined): Error {
  return new ParseError({
    code: 'invalid_macro_argument',
    message,
    ...(node ? { node: node as unknown as ASTNode } : {}),
  });
}

export function identifierOf(node: Ast | undefined, message: string): string {
  if (node?.op === 'id' && typeof node.args === 'string') return node.args;
  throw macroParseError(message, node);
}

export function isDynOrBool(type: TypeDecl): boolean {
  return type.kind === 'dyn' || type.name === 'bool';
}
