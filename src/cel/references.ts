import type { ASTNode } from './celJs.ts';
import { baseEnvironment } from './environment.ts';
import type { ParsedExpression } from './parse.ts';
import { unshadowedName } from './shadowing.ts';

/** One step of a reference path: a field selection or a literal index. */
export type PathStep =
  | { readonly kind: 'field'; readonly name: string; readonly optional: boolean }
  | { readonly kind: 'index'; readonly index: string | bigint | number; readonly optional: boolean };

/**
 * A free identifier the expression reads, with the literal selection path that follows it.
 * `a.b[0].?c[x].d` gives root `a`, path `b`, `[0]`, `?c` (the path stops at the dynamic index `[x]`).
 */
export interface Reference {
  readonly root: string;
  readonly path: readonly PathStep[];
  /** Whether optional access (`.?` or `[?…]`) appears on the path. It still is a dependency. */
  readonly optional: boolean;
  /** Source range of the root identifier and its literal path. */
  readonly position: number;
  readonly end: number;
}

export interface ReferenceOptions {
  /**
   * Identifiers that are not references (namespaces and constants of the environment). Default:
   * every name the base environment defines (`cel`, `optional`, `lists`, type names, …).
   */
  readonly isGlobal?: (name: string) => boolean;
}

/** Macros whose leading identifier arguments bind variables in the remaining arguments. */
function boundVariableCount(name: string, argc: number, isNamespaceCall: boolean): number {
  if (isNamespaceCall) return 0;
  switch (name) {
    case 'all':
    case 'exists':
    case 'existsOne':
      return argc === 3 ? 2 : argc === 2 ? 1 : 0;
    case 'exists_one':
    case 'filter':
    case 'sortBy':
    case 'optMap':
    case 'optFlatMap':
      return argc === 2 ? 1 : 0;
    case 'map':
      return argc === 2 || argc === 3 ? 1 : 0;
    case 'transformList':
    case 'transformMap':
    case 'transformMapEntry':
      return argc === 3 || argc === 4 ? 2 : 0;
    default:
      return 0;
  }
}

type AnyNode = { op: string; args: unknown; start: number; end: number };

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

const SELECT_OPS = new Set(['.', '.?', '[]', '[?]']);

/** Lists the references of a parsed expression, in source order, duplicates included. */
export function listReferences(
  parsed: ParsedExpression | ASTNode,
  options: ReferenceOptions = {},
): Reference[] {
  const ast = ('handle' in parsed ? parsed.ast : parsed) as unknown as AnyNode;
  const toOriginal = 'handle' in parsed ? parsed.toOriginal : (p: number) => p;
  const base = options.isGlobal ? undefined : baseEnvironment().engine;
  const isGlobal = options.isGlobal ?? ((name: string) => base?.hasVariable(name) === true);
  const out: Reference[] = [];

  const visit = (node: AnyNode, scope: ReadonlySet<string>): void => {
    if (SELECT_OPS.has(node.op) || node.op === 'id') {
      visitChain(node, scope);
      return;
    }
    if (node.op === 'rcall' || node.op === 'call') {
      visitCall(node, scope);
      return;
    }
    visitChildren(node.args, scope);
  };

  const visitChildren = (args: unknown, scope: ReadonlySet<string>): void => {
    if (isNode(args)) visit(args, scope);
    else if (Array.isArray(args)) for (const a of args) visitChildren(a, scope);
  };

  const visitCall = (node: AnyNode, scope: ReadonlySet<string>): void => {
    const args = node.args as unknown[];
    const name = args[0] as string;
    const receiver = node.op === 'rcall' ? (args[1] as AnyNode) : undefined;
    const callArgs = (node.op === 'rcall' ? args[2] : args[1]) as AnyNode[];
    // cel.bind(x, init, body): x is bound in body only.
    if (receiver?.op === 'id' && receiver.args === 'cel' && name === 'bind' && callArgs.length === 3) {
      const [v, init, body] = callArgs as [AnyNode, AnyNode, AnyNode];
      visit(init, scope);
      visit(body, v.op === 'id' ? new Set([...scope, v.args as string]) : scope);
      return;
    }
    // runtime.newCondition({type: …, status: …}): the bare keys are field names, not references.
    if (receiver?.op === 'id' && receiver.args === 'runtime' && name === 'newCondition') {
      const map = callArgs[0];
      if (map?.op === 'map' && Array.isArray(map.args)) {
        for (const [key, value] of map.args as [AnyNode, AnyNode][]) {
          if (key.op !== 'id') visit(key, scope);
          visit(value, scope);
        }
        return;
      }
    }
    const isNamespaceCall = receiver?.op === 'id' && isGlobal(receiver.args as string);
    const bound = receiver ? boundVariableCount(name, callArgs.length, isNamespaceCall) : 0;
    if (receiver) visit(receiver, scope);
    const inner = new Set(scope);
    for (let i = 0; i < bound; i++) {
      const a = callArgs[i];
      if (a?.op === 'id') inner.add(a.args as string);
    }
    callArgs.forEach((a, i) => {
      if (i >= bound) visit(a, bound > 0 ? inner : scope);
    });
  };

  const visitChain = (top: AnyNode, scope: ReadonlySet<string>): void => {
    const chain: AnyNode[] = [];
    let node = top;
    while (SELECT_OPS.has(node.op)) {
      chain.unshift(node);
      node = (node.args as [AnyNode, unknown])[0];
    }
    // Index expressions are evaluated in the current scope whatever the chain's base is.
    for (const sel of chain) {
      if (sel.op === '[]' || sel.op === '[?]') {
        const index = (sel.args as [AnyNode, AnyNode])[1];
        if (index.op !== 'value') visit(index, scope);
      }
    }
    if (node.op !== 'id') {
      visit(node, scope);
      return;
    }
    const engineRoot = node.args as string;
    // A variable that shadows a global is parsed under its alias (./shadowing.ts): report the user's name.
    const root = unshadowedName(engineRoot) ?? engineRoot;
    if (scope.has(engineRoot) || (root === engineRoot && isGlobal(root))) return;
    const path: PathStep[] = [];
    let end = node.end;
    let optional = false;
    for (const sel of chain) {
      const step = pathStep(sel);
      if (step === undefined) break;
      optional ||= step.optional;
      path.push(step);
      end = sel.end;
    }
    const position = toOriginal(node.start);
    out.push({ root, path, optional, position, end: Math.max(position, toOriginal(end - 1) + 1) });
  };

  visit(ast, new Set());
  return out.sort((a, b) => a.position - b.position);
}

function pathStep(sel: AnyNode): PathStep | undefined {
  const optional = sel.op === '.?' || sel.op === '[?]';
  if (sel.op === '.' || sel.op === '.?') {
    return { kind: 'field', name: (sel.args as [AnyNode, string])[1], optional };
  }
  const index = (sel.args as [AnyNode, AnyNode])[1];
  if (index.op !== 'value') return undefined;
  const v = index.args;
  if (typeof v === 'string' || typeof v === 'bigint' || typeof v === 'number') {
    return { kind: 'index', index: v, optional };
  }
  return undefined;
}

/** The distinct root identifiers an expression references. */
export function referencedRoots(
  parsed: ParsedExpression | ASTNode,
  options: ReferenceOptions = {},
): string[] {
  return [...new Set(listReferences(parsed, options).map((r) => r.root))];
}
