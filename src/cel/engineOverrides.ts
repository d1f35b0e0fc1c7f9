import { Environment, EvaluationError } from './celJs.ts';

/**
 * Replacing handlers of the engine's built-in operators and functions, to fix deviations from cel-go
 * that the engine refuses to let us re-register (overlapping overloads). Every overload lookup, at
 * check time and at dynamic dispatch, goes through the registry's candidate sets
 * (`findUnaryOverload`, `findBinaryOverload`, `findFunction`); we wrap those once and map a built-in
 * declaration to our replacement (same types, our handler, optionally a corrected return type).
 * Declarations are shared by every environment, so a replacement is process-wide.
 * Engine-internal: test/unit/cel/core-overrides.test.ts and test/unit/cel/lib-override.test.ts fail
 * loudly if an upgrade breaks it. Used by ./fixes.ts, ./timezones.ts and the libraries (lib/strings.ts,
 * lib/regex.ts: `matches` with RE2, code-point `indexOf`, `substring`…).
 */

export type Handler = (...args: never[]) => unknown;

/** What a handler decorator sees of a declaration: its name (functions) or operator, and its handler. */
export interface HandlerDeclaration {
  readonly name?: string;
  readonly operator?: string;
  readonly signature: string;
  readonly handler: Handler;
  readonly macro?: boolean;
}

interface Declaration {
  readonly signature: string;
  readonly handler: Handler;
  readonly returnType: unknown;
}

interface OperatorDeclaration extends Declaration {
  readonly operator: string;
  readonly leftType: unknown;
  readonly rightType: unknown;
  readonly async: boolean;
}

interface FunctionDeclaration extends Declaration {
  readonly name: string;
  readonly receiverType: unknown;
  readonly params: unknown[];
  readonly description: string | null;
}

interface CandidateSet {
  declarations: Declaration[];
  findUnaryOverload(left: unknown): Declaration | false;
  findBinaryOverload(left: unknown, right: unknown): Declaration | false;
  findFunction(argTypes: unknown[], receiverType?: unknown): Declaration | null;
}

interface Registry {
  findMacro(name: string, hasReceiver: boolean, argCount: number): Declaration | false;
  operatorCandidates(op: string): CandidateSet;
  functionCandidates(receiver: boolean, name: string, argCount: number): CandidateSet;
  getType(name: string): unknown;
}

const replacements = new Map<Declaration, Declaration>();
/** Macro declarations (parse-time expanders) by engine signature, see overrideMacro(). */
const macroReplacements = new Map<string, Declaration>();
const macroOriginals = new Map<string, Declaration>();
const bySignature = new Map<string, Declaration>();
/** Replacements whose declared return type overrides the one inferred for a type-parameter match. */
const fixedReturnTypes = new Map<Declaration, unknown>();
let registry: Registry | undefined;

const WRAPPED = Symbol.for('kgraph.cel.overrides');

let decorator: ((decl: HandlerDeclaration) => Handler) | undefined;
/** Engine declaration → what dispatch uses (replaced, then decorated); see probe(). */
let swaps = new WeakMap<Declaration, Declaration>();
function resetSwaps(): void {
  swaps = new WeakMap();
}
const decorated = new WeakMap<Declaration, Declaration>();
/** Wrapped handlers by original handler and name: lookups of type-parameter overloads return fresh objects. */
const wrappedHandlers = new WeakMap<Handler, Map<string, Handler>>();

/**
 * Wraps the handler of every function and operator (built-in, replaced or registered by a library)
 * as it is looked up, at check time and at dynamic dispatch. Used by the cost model (./costModel.ts).
 * Macros are left alone: they expand at parse time. Set once per process.
 */
export function decorateHandlers(wrap: (decl: HandlerDeclaration) => Handler): void {
  probe();
  decorator = wrap;
  resetSwaps();
}

function decorate<T extends Declaration | false | null>(d: T): T {
  if (!d || decorator === undefined || (d as HandlerDeclaration).macro === true) return d;
  let out = decorated.get(d);
  if (out === undefined) {
    const decl = d as HandlerDeclaration;
    const key = decl.operator ?? decl.name ?? decl.signature;
    let byName = wrappedHandlers.get(d.handler);
    if (byName === undefined) {
      byName = new Map();
      wrappedHandlers.set(d.handler, byName);
    }
    let handler = byName.get(key);
    if (handler === undefined) {
      handler = decorator(decl);
      byName.set(key, handler);
    }
    const copy = Object.assign(Object.create(Object.getPrototypeOf(d) as object) as object, d, {
      handler,
    }) as unknown as Declaration;
    out = Object.freeze(copy);
    decorated.set(d, out);
  }
  return out as T;
}

/** The engine registry of a fresh environment, caught by a probe macro at parse time. */
function registryOf(options?: { enableOptionalTypes: boolean }): Registry | undefined {
  const env = new Environment(options);
  let found: Registry | undefined;
  env.registerFunction('kgraphOverridesProbe(ast): bool', (opts: { parser: { registry: Registry } }) => {
    found = opts.parser.registry;
    return { typeCheck: () => undefined, evaluate: () => true };
  });
  env.parse('kgraphOverridesProbe(1)');
  return found;
}

function probe(): Registry {
  if (registry) return registry;
  const found = registryOf();
  if (!found || typeof found.operatorCandidates !== 'function') {
    throw new Error('cannot override CEL built-ins: the engine registry probe failed');
  }
  const proto = Object.getPrototypeOf(found.operatorCandidates('+')) as CandidateSet & {
    [WRAPPED]?: boolean;
  };
  if (!proto[WRAPPED]) {
    const { findUnaryOverload, findBinaryOverload, findFunction } = proto;
    // Declarations with type parameters (`V in list<V>`) are returned as fresh match objects that
    // carry the declaration's signature and handler; those are swapped by signature.
    const matched = new WeakMap<Declaration, Declaration>();
    // One lookup per dynamic dispatch: the swapped-and-decorated declaration is cached until an
    // override or the decorator changes (resetSwaps).
    // Fresh match objects (plain objects, one per lookup) are not cached.
    const swap = <T extends Declaration | false | null>(d: T): T => {
      if (!d) return d;
      const decl: Declaration = d;
      const cached = swaps.get(decl);
      if (cached !== undefined) return cached as T;
      const out = decorate(replace(decl));
      if (Object.getPrototypeOf(decl) !== Object.prototype) swaps.set(decl, out);
      return out as T;
    };
    const replace = <T extends Declaration | false | null>(d: T): T => {
      if (!d) return d;
      const direct = replacements.get(d);
      if (direct) return direct as T;
      const bySig = bySignature.get(d.signature);
      if (!bySig) return d;
      let m = matched.get(d);
      if (!m) {
        m = { ...d, handler: bySig.handler };
        const fixed = fixedReturnTypes.get(bySig);
        if (fixed !== undefined) m = { ...m, returnType: fixed };
        matched.set(d, m);
      }
      return m as T;
    };
    proto.findUnaryOverload = function (this: CandidateSet, left) {
      return swap(findUnaryOverload.call(this, left));
    };
    proto.findBinaryOverload = function (this: CandidateSet, left, right) {
      return swap(findBinaryOverload.call(this, left, right));
    };
    proto.findFunction = function (this: CandidateSet, argTypes, receiverType) {
      return swap(findFunction.call(this, argTypes, receiverType));
    };
    proto[WRAPPED] = true;
  }
  // Macros are looked up by the parser through the registry, not through a candidate set.
  const registryProto = Object.getPrototypeOf(found) as Registry & { [WRAPPED]?: boolean };
  if (!registryProto[WRAPPED]) {
    const { findMacro } = registryProto;
    registryProto.findMacro = function (this: Registry, name, hasReceiver, argCount) {
      const d = findMacro.call(this, name, hasReceiver, argCount);
      return (d && macroReplacements.get(d.signature)) || d;
    };
    registryProto[WRAPPED] = true;
  }
  registry = found;
  return found;
}

const BINARY_OPS = ['==', '!=', '<=', '>=', '<', '>', '+', '-', '*', '/', '%', 'in'];

function findOperator(signature: string): OperatorDeclaration {
  const reg = probe();
  const unary = /^([!-]_)/.exec(signature)?.[1];
  const op = unary ?? BINARY_OPS.find((o) => signature.includes(` ${o} `));
  if (!op) throw new Error(`bad operator signature: ${signature}`);
  const decl = reg.operatorCandidates(op).declarations.find((d) => d.signature === signature);
  if (!decl) throw new Error(`cannot override CEL operator ${signature}: not found`);
  return decl as OperatorDeclaration;
}

/**
 * Replaces the handler of the built-in operator with the exact engine signature (`int / int: int`,
 * `-int: int`). `wrap` receives the original handler. `returnType` corrects the declared result type.
 */
export function overrideOperator(
  signature: string,
  wrap: (original: Handler) => Handler,
  returnType?: string,
): void {
  const original = findOperator(signature);
  const Ctor = original.constructor as new (init: Record<string, unknown>) => Declaration;
  const replacement = new Ctor({
    op: original.operator,
    leftType: original.leftType,
    rightType: original.rightType ?? undefined,
    handler: wrap(original.handler),
    returnType: returnType ? probe().getType(returnType) : original.returnType,
    async: false,
  });
  replacements.set(original, replacement);
  bySignature.set(original.signature, replacement);
  resetSwaps();
}

/**
 * Replaces the handler of the built-in function with the exact engine signature. `returnType`
 * replaces the declared result type (e.g. `optional<dyn>` for `optional.none()`, whose type
 * parameter the engine leaves unbound).
 */
export function overrideFunction(
  signature: string,
  wrap: (original: Handler) => Handler,
  returnType?: string,
): void {
  const reg = probe();
  const m = /^(?:(.+?)\.)?([A-Za-z_][A-Za-z0-9_]*)\(([^)]*)\):/.exec(signature);
  if (!m) throw new Error(`bad function signature: ${signature}`);
  const argCount = m[3] === '' ? 0 : (m[3] ?? '').split(',').length;
  const candidates = reg.functionCandidates(m[1] !== undefined, m[2] ?? '', argCount);
  const original = candidates.declarations.find((d) => d.signature === signature) as
    | FunctionDeclaration
    | undefined;
  if (!original) throw new Error(`cannot override CEL function ${signature}: not found`);
  const Ctor = original.constructor as new (init: Record<string, unknown>) => Declaration;
  const fixed = returnType ? reg.getType(returnType) : undefined;
  const replacement = new Ctor({
    name: original.name,
    receiverType: original.receiverType,
    returnType: fixed ?? original.returnType,
    params: original.params,
    description: original.description,
    handler: wrap(original.handler),
  });
  replacements.set(original, replacement);
  bySignature.set(original.signature, replacement);
  if (fixed !== undefined) fixedReturnTypes.set(replacement, fixed);
  resetSwaps();
}

/**
 * Replaces the handler of the built-in function with the exact engine signature (e.g.
 * `string.matches(string): bool`) by `handler`, keeping its types. Process-wide and idempotent: the
 * last handler wins.
 */
export function overrideBuiltin(signature: string, handler: Handler): void {
  overrideFunction(signature, () => handler);
}

/** What a macro expander returns to the parser: the engine calls its `typeCheck` and `evaluate`. */
export interface MacroExpansion {
  typeCheck?: (...args: never[]) => unknown;
  readonly [key: string]: unknown;
}

/**
 * Replaces the parse-time expander of a built-in macro-style function (declared with `ast`
 * parameters, e.g. `optional<dyn>.orValue(ast): dyn`); `wrap` receives the original expander and
 * typically decorates the expansion it returns (its `typeCheck` or `evaluate`).
 */
export function overrideMacro(
  signature: string,
  wrap: (original: (opts: unknown) => MacroExpansion) => (opts: unknown) => MacroExpansion,
): void {
  probe();
  // The optional library (orValue, or…) is only registered in environments that enable it.
  const reg = registryOf({ enableOptionalTypes: true });
  const m = /^(?:(.+?)\.)?([A-Za-z_][A-Za-z0-9_]*)\(([^)]*)\):/.exec(signature);
  if (!m || !reg) throw new Error(`bad macro signature: ${signature}`);
  const argCount = m[3] === '' ? 0 : (m[3] ?? '').split(',').length;
  // The engine's own declaration, also when overridden before (the last override wins).
  const original = macroOriginals.get(signature) ?? reg.findMacro(m[2] ?? '', m[1] !== undefined, argCount);
  if (!original || original.signature !== signature) {
    throw new Error(`cannot override CEL macro ${signature}: not found`);
  }
  const handler = wrap(original.handler as unknown as (opts: unknown) => MacroExpansion);
  const copy = Object.assign(Object.create(Object.getPrototypeOf(original) as object) as object, original, {
    handler,
  }) as unknown as Declaration;
  macroOriginals.set(signature, original);
  macroReplacements.set(signature, Object.freeze(copy));
}

export function engineError(code: string, message: string): Error {
  return new EvaluationError({ code, message });
}
