import { Environment } from '@marcbachmann/cel-js';

/**
 * Replacing built-in overloads of the engine.
 *
 * Why: several built-ins of @marcbachmann/cel-js 8.0.0 differ from cel-go (`matches` uses JavaScript
 * RegExp instead of RE2; `indexOf`, `substring`… count UTF-16 units instead of code points), and
 * the engine refuses to register an overlapping overload. Every overload lookup — at check time and
 * at dynamic dispatch — goes through `Candidates.prototype.findFunction`, so we wrap that method
 * once and map a built-in declaration to our replacement declaration (same signature, our handler).
 * The engine's classes are not exported; a throwaway environment with a probe macro hands us the
 * parser's registry, from which we reach the candidate set and the declaration class.
 * This is engine-internal: test/unit/cel/lib-override.test.ts fails loudly if an upgrade breaks it.
 */

type Handler = (...args: never[]) => unknown;

interface Declaration {
  signature: string;
  name: string;
  receiverType: unknown;
  returnType: unknown;
  params: unknown[];
  description: string | null;
}

interface CandidateSet {
  declarations: Declaration[];
  findFunction(argTypes: unknown[], receiverType?: unknown): Declaration | null;
}

interface ProbeRegistry {
  functionCandidates(receiver: boolean, name: string, argCount: number): CandidateSet;
}

const replacements = new Map<Declaration, Declaration>();
let registry: ProbeRegistry | undefined;

function probeRegistry(): ProbeRegistry {
  if (registry) return registry;
  const probe = new Environment();
  let found: ProbeRegistry | undefined;
  probe.registerFunction(
    'kgraphOverrideProbe(ast): bool',
    (opts: { parser: { registry: ProbeRegistry } }) => {
      found = opts.parser.registry;
      return { typeCheck: () => undefined, evaluate: () => true };
    },
  );
  probe.parse('kgraphOverrideProbe(1)');
  if (!found || typeof found.functionCandidates !== 'function') {
    throw new Error('cannot override CEL built-ins: the engine registry probe failed');
  }
  const candidates = found.functionCandidates(true, 'size', 0);
  const proto = Object.getPrototypeOf(candidates) as CandidateSet & { kgraphWrapped?: boolean };
  if (!proto.kgraphWrapped) {
    const original = proto.findFunction;
    proto.findFunction = function findFunction(this: CandidateSet, argTypes, receiverType) {
      const decl = original.call(this, argTypes, receiverType);
      return (decl && replacements.get(decl)) ?? decl;
    };
    proto.kgraphWrapped = true;
  }
  registry = found;
  return found;
}

/**
 * Replaces the handler of the built-in overload with the exact `signature` (as the engine prints it,
 * e.g. `string.matches(string): bool`). Process-wide and idempotent: the last handler wins.
 */
export function overrideBuiltin(signature: string, handler: Handler): void {
  const reg = probeRegistry();
  const match = /^(?:([^.(]+(?:<[^>]*>)?)\.)?([A-Za-z_][A-Za-z0-9_]*)\((.*)\):/.exec(signature);
  if (!match) throw new Error(`bad built-in signature: ${signature}`);
  const argCount = match[3] === '' ? 0 : (match[3] ?? '').split(',').length;
  const candidates = reg.functionCandidates(match[1] !== undefined, match[2] ?? '', argCount);
  const original = candidates.declarations.find((d) => d.signature === signature);
  if (!original) throw new Error(`cannot override CEL built-in ${signature}: not found`);
  const Ctor = original.constructor as new (init: Record<string, unknown>) => Declaration;
  const replacement = new Ctor({
    name: original.name,
    receiverType: original.receiverType,
    returnType: original.returnType,
    params: original.params,
    description: original.description,
    handler,
  });
  replacements.set(original, replacement);
}
