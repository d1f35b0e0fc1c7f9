/**
 * Parses the type part of a SimpleSchema field (`[]map[string]Person`) into a small tree. Kept apart
 * from schema building so custom-type dependencies can be read off the tree before anything is
 * converted, and so malformed types get their own precise diagnostics.
 */
import { SchemaCode } from '../codes.ts';

export const MAX_TYPE_NESTING = 16;

export type AtomicName = 'string' | 'integer' | 'boolean' | 'float';

export type TypeExpr =
  | { kind: 'atomic'; name: AtomicName }
  | { kind: 'object' }
  | { kind: 'array'; element: TypeExpr }
  | { kind: 'map'; value: TypeExpr }
  | { kind: 'custom'; name: string };

export type TypeParseResult = { ok: true; type: TypeExpr } | { ok: false; code: string; message: string };

const ATOMIC = new Set<string>(['string', 'integer', 'boolean', 'float']);
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseTypeExpr(text: string): TypeParseResult {
  return parseAt(text.trim(), 0);
}

function parseAt(s: string, depth: number): TypeParseResult {
  if (depth > MAX_TYPE_NESTING) {
    return {
      ok: false,
      code: SchemaCode.TypeNestingTooDeep,
      message: `type nesting too deep (max ${MAX_TYPE_NESTING})`,
    };
  }
  if (s === '') return { ok: false, code: SchemaCode.MalformedType, message: 'empty type' };
  if (ATOMIC.has(s)) return { ok: true, type: { kind: 'atomic', name: s as AtomicName } };
  if (s === 'object') return { ok: true, type: { kind: 'object' } };
  if (s.startsWith('[]')) {
    const rest = s.slice(2).trim();
    if (rest === '')
      return { ok: false, code: SchemaCode.MalformedType, message: 'empty slice element type' };
    const element = parseAt(rest, depth + 1);
    return element.ok ? { ok: true, type: { kind: 'array', element: element.type } } : element;
  }
  if (s.startsWith('map[')) {
    const close = s.indexOf(']');
    if (close < 0)
      return { ok: false, code: SchemaCode.MalformedType, message: `unclosed map key in '${s}'` };
    const keyType = s.slice(4, close).trim();
    if (keyType !== 'string') {
      return {
        ok: false,
        code: SchemaCode.MapKeyNotString,
        message: `map key must be string (got '${keyType}')`,
      };
    }
    const rest = s.slice(close + 1).trim();
    if (rest === '')
      return { ok: false, code: SchemaCode.MalformedType, message: 'map value type is required' };
    const value = parseAt(rest, depth + 1);
    return value.ok ? { ok: true, type: { kind: 'map', value: value.type } } : value;
  }
  if (!IDENT.test(s)) return { ok: false, code: SchemaCode.MalformedType, message: `invalid type '${s}'` };
  return { ok: true, type: { kind: 'custom', name: s } };
}

/** Custom type names a type expression mentions. */
export function customTypeNames(t: TypeExpr, into: Set<string> = new Set()): Set<string> {
  if (t.kind === 'custom') into.add(t.name);
  else if (t.kind === 'array') customTypeNames(t.element, into);
  else if (t.kind === 'map') customTypeNames(t.value, into);
  return into;
}

/** Splits a field string on the first `|` into its type text and marker text. */
export function splitField(text: string): { typeText: string; markerText: string } {
  const bar = text.indexOf('|');
  if (bar < 0) return { typeText: text.trim(), markerText: '' };
  return { typeText: text.slice(0, bar).trim(), markerText: text.slice(bar + 1) };
}
