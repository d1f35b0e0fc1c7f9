/**
 * The functions and macros of kgraph's CEL environment as a list, for editors: completion shows
 * each overload's signature and hover names it. Read from the environment itself, so the list never
 * drifts from what the checker accepts.
 */
import { baseEnvironment } from './environment.ts';

export interface CelFunctionInfo {
  /** The function's name (`format`, `split`). */
  name: string;
  /** The overload as declared, e.g. `string.split(string): list<string>`. */
  signature: string;
  /** The receiver type for a method (`string`), null for a global function. */
  receiverType: string | null;
  returnType: string;
  description: string | null;
}

/** Macros are parsed, not registered as functions: listed here with their shapes. */
export const CEL_MACROS: readonly { name: string; signature: string; receiver: boolean }[] = [
  { name: 'has', signature: 'has(a.field): bool', receiver: false },
  { name: 'all', signature: 'list.all(x, predicate): bool', receiver: true },
  { name: 'exists', signature: 'list.exists(x, predicate): bool', receiver: true },
  { name: 'exists_one', signature: 'list.exists_one(x, predicate): bool', receiver: true },
  { name: 'map', signature: 'list.map(x, expr): list', receiver: true },
  { name: 'filter', signature: 'list.filter(x, predicate): list', receiver: true },
];

let cached: readonly CelFunctionInfo[] | undefined;

/** Every function overload of the base environment (kgraph's libraries included), memoized. */
export function celFunctionCatalog(): readonly CelFunctionInfo[] {
  if (cached) return cached;
  const defs = baseEnvironment().engine.getDefinitions();
  cached = defs.functions.map((f) => ({
    name: f.name,
    signature: f.signature,
    receiverType: f.receiverType,
    returnType: f.returnType,
    description: f.description,
  }));
  return cached;
}
