/**
 * Variables named like a global of the environment (`net`, `strings`, `base64`, `int`, …), as cel-go
 * resolves them (design/platform.md §3.4): a declared variable shadows the global identifier, except
 * where cel-go resolves a qualified name first — a namespaced function call (`base64.encode(b)`), a
 * qualified type name (`net.IP`) and a global function call (`int(x)`).
 *
 * The engine keeps one table for constants and variables and refuses to redeclare a name, so such a
 * variable is declared under an alias and the expression's root identifiers that mean the variable
 * are renamed to the alias before the engine parses it; positions still map to the user's source.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Malformed, type Rewritten, type Token, tokenize } from './rewrite.ts';

const ALIAS_PREFIX = '__kgraph_var_';

/** The engine name of a variable that shadows a global. */
export function shadowAlias(name: string): string {
  return `${ALIAS_PREFIX}${name}`;
}

/** The user's name of an aliased variable (`undefined` for any other identifier). */
export function unshadowedName(engineName: string): string | undefined {
  return engineName.startsWith(ALIAS_PREFIX) ? engineName.slice(ALIAS_PREFIX.length) : undefined;
}

interface Definitions {
  variables: { name: string; type: string }[];
  functions: { name: string; receiverType: string | null }[];
}

/**
 * The qualified members of a global that cel-go resolves before a variable of the same name: its
 * namespaced functions when called (`base64` → `encode`), and qualified type names (`net` → `IP`).
 */
export interface GlobalMembers {
  readonly functions: ReadonlySet<string>;
  readonly types: ReadonlySet<string>;
}

const membersByEngine = new WeakMap<Environment, Map<string, GlobalMembers>>();

const NO_MEMBERS: GlobalMembers = { functions: new Set(), types: new Set() };

/** The qualified members of each global of `engine`. */
export function globalMembers(engine: Environment): Map<string, GlobalMembers> {
  let members = membersByEngine.get(engine);
  if (members) return members;
  members = new Map();
  const defs = engine.getDefinitions() as unknown as Definitions;
  const byReceiver = new Map<string, Set<string>>();
  for (const f of defs.functions) {
    if (f.receiverType === null) continue;
    const set = byReceiver.get(f.receiverType) ?? new Set<string>();
    set.add(f.name);
    byReceiver.set(f.receiverType, set);
  }
  const typeKeys: Record<string, readonly string[]> = {
    net: ['IP', 'CIDR'],
    google: ['protobuf'],
  };
  for (const v of defs.variables) {
    members.set(v.name, {
      functions: byReceiver.get(v.type) ?? new Set(),
      types: new Set(typeKeys[v.name] ?? []),
    });
  }
  membersByEngine.set(engine, members);
  return members;
}

function significant(tokens: readonly Token[], from: number, step: 1 | -1): number {
  let i = from;
  while (i >= 0 && i < tokens.length && tokens[i]?.kind === 'ws') i += step;
  return i;
}

function isPunct(t: Token | undefined, text: string): boolean {
  return t?.kind === 'punct' && t.text === text;
}

/** Whether the identifier at `i` is a root identifier meaning the shadowing variable. */
function meansVariable(tokens: readonly Token[], i: number, members: GlobalMembers): boolean {
  const p = significant(tokens, i - 1, -1);
  const prev = tokens[p];
  if (isPunct(prev, '.')) return false;
  if (isPunct(prev, '?') && isPunct(tokens[significant(tokens, p - 1, -1)], '.')) return false;
  const n = significant(tokens, i + 1, 1);
  const next = tokens[n];
  if (isPunct(next, '(')) return false;
  if (isPunct(next, '.')) {
    const m = significant(tokens, n + 1, 1);
    const member = tokens[m];
    if (member?.kind === 'ident') {
      if (members.types.has(member.text)) return false;
      const called = isPunct(tokens[significant(tokens, m + 1, 1)], '(');
      if (called && members.functions.has(member.text)) return false;
    }
  }
  return true;
}

/**
 * Renames the root identifiers of `rewritten.source` that mean a shadowing variable to its alias.
 * Malformed input is returned unchanged for the engine to report.
 */
export function renameShadowed(
  rewritten: Rewritten,
  shadows: ReadonlyMap<string, string>,
  members: ReadonlyMap<string, GlobalMembers>,
): Rewritten {
  let tokens: Token[];
  try {
    tokens = tokenize(rewritten.source);
  } catch (err) {
    if (err instanceof Malformed) return rewritten;
    throw err;
  }
  let text = '';
  const map: number[] = [];
  let changed = false;
  tokens.forEach((t, i) => {
    const alias = t.kind === 'ident' ? shadows.get(t.text) : undefined;
    if (alias !== undefined && meansVariable(tokens, i, members.get(t.text) ?? NO_MEMBERS)) {
      text += alias;
      for (let k = 0; k < alias.length; k++) map.push(t.pos + Math.min(k, t.text.length - 1));
      changed = true;
      return;
    }
    text += t.text;
    for (let k = 0; k < t.text.length; k++) map.push(t.pos + k);
  });
  if (!changed) return rewritten;
  const inner = rewritten.toOriginal;
  const length = rewritten.source.length;
  return {
    source: text,
    changed: true,
    toOriginal: (p) => inner(p >= map.length ? length : (map[p] ?? length)),
  };
}
