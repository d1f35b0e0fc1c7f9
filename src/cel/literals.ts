import { CelCode } from './codes.ts';
import type { CelError } from './errors.ts';

/**
 * Validation of map literals the engine does not do (cel-go fails these at evaluation): keys must be
 * int, uint, bool or string, and literal keys must not repeat (`{0: 1, 0u: 2}` repeats, as 0 == 0u).
 * Reported as type errors at check time, since the expression can never evaluate.
 */
type AnyNode = { op: string; args: unknown; start: number; end: number };

function isNode(v: unknown): v is AnyNode {
  return typeof v === 'object' && v !== null && 'op' in v && 'args' in v;
}

/** A canonical form of a literal key, or an error message for an unsupported key type. */
function keyOf(value: unknown): { key: string } | { error: string } {
  switch (typeof value) {
    case 'string':
      return { key: `s:${value}` };
    case 'boolean':
      return { key: `b:${value}` };
    case 'bigint':
      return { key: `n:${value}` };
    case 'number':
      return { error: 'unsupported map key type: double' };
    default:
      if (value === null) return { error: 'unsupported map key type: null' };
      if (typeof value === 'object' && value.constructor?.name === 'UnsignedInt') {
        return { key: `n:${(value as { value: bigint }).value}` };
      }
      if (value instanceof Uint8Array) return { error: 'unsupported map key type: bytes' };
      return { key: `?:${String(value)}` };
  }
}

export function validateMapLiterals(ast: unknown): CelError | undefined {
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      stack.push(...item);
      continue;
    }
    if (!isNode(item)) continue;
    if (item.op === 'map' && Array.isArray(item.args)) {
      const seen = new Set<string>();
      for (const entry of item.args as Array<[AnyNode, AnyNode]>) {
        const [k] = entry;
        if (k?.op !== 'value') continue;
        const r = keyOf(k.args);
        const at = { position: k.start, end: k.end };
        if ('error' in r) return { code: CelCode.Type, kind: 'type', message: r.error, ...at };
        if (seen.has(r.key)) {
          return { code: CelCode.Type, kind: 'type', message: `repeated map key: ${String(k.args)}`, ...at };
        }
        seen.add(r.key);
      }
    }
    stack.push(item.args);
  }
  return undefined;
}
