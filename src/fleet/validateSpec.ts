/**
 * Does an instance's spec still fit the new schema? The structural checks the API server makes when an
 * object is written (design/rgd.md §19.9): type, required fields, enum, pattern, bounds of numbers,
 * strings, lists and maps. The server ratchets: an update that leaves an invalid field unchanged passes,
 * so a problem here means the next change of that field must fit. Fields the schema does not know are
 * reported too — the server drops them (pruning), so what they meant is lost. `x-kubernetes-validations`
 * rules are not evaluated here. Pure.
 */
import { isRecord } from '../diag/record.ts';
import type { OpenAPISchema } from '../schema/openapi.ts';

/** The problems of `value` against `schema`, each `path: what`; empty when it fits. */
export function validateAgainst(value: unknown, schema: OpenAPISchema, path = 'spec'): string[] {
  const out: string[] = [];
  check(value, schema, path, out);
  return out;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

function fitsType(v: unknown, s: OpenAPISchema): boolean {
  if (s['x-kubernetes-int-or-string']) return typeof v === 'string' || typeOf(v) === 'integer';
  if (s.type === undefined) return true;
  const t = typeOf(v);
  if (t === 'null') return s.nullable === true;
  if (s.type === 'number') return t === 'number' || t === 'integer';
  return t === s.type;
}

function check(v: unknown, s: OpenAPISchema, path: string, out: string[]): void {
  if (v === undefined) return;
  if (!fitsType(v, s)) {
    out.push(`${path}: ${typeOf(v)} where the schema wants ${s.type ?? 'int-or-string'}`);
    return;
  }
  if (v === null) return;
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    out.push(
      `${path}: ${JSON.stringify(v)} is not one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`,
    );
  }
  if (typeof v === 'string') {
    if (s.pattern !== undefined && !matches(s.pattern, v)) out.push(`${path}: does not match ${s.pattern}`);
    bound(path, 'length', [...v].length, s.minLength, s.maxLength, out);
  }
  if (typeof v === 'number' || typeof v === 'bigint')
    bound(path, 'value', Number(v), s.minimum, s.maximum, out);
  if (Array.isArray(v)) {
    bound(path, 'items', v.length, s.minItems, s.maxItems, out);
    const items = s.items;
    if (items) {
      v.forEach((item, i) => {
        check(item, items, `${path}[${i}]`, out);
      });
    }
  }
  if (isRecord(v)) {
    const keys = Object.keys(v);
    bound(path, 'properties', keys.length, s.minProperties, s.maxProperties, out);
    for (const r of s.required ?? []) if (!(r in v)) out.push(`${path}.${r}: required`);
    for (const k of keys) {
      const prop = s.properties?.[k];
      if (prop) check(v[k], prop, `${path}.${k}`, out);
      else if (isRecord(s.additionalProperties)) check(v[k], s.additionalProperties, `${path}.${k}`, out);
      else if (
        s.properties &&
        s.additionalProperties !== true &&
        !s['x-kubernetes-preserve-unknown-fields']
      ) {
        out.push(`${path}.${k}: not in the schema (the API server drops it)`);
      }
    }
  }
}

function bound(
  path: string,
  what: string,
  n: number,
  min: number | undefined,
  max: number | undefined,
  out: string[],
): void {
  if (min !== undefined && n < min) out.push(`${path}: ${what} ${n} below the minimum ${min}`);
  if (max !== undefined && n > max) out.push(`${path}: ${what} ${n} above the maximum ${max}`);
}

function matches(pattern: string, v: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(v);
  } catch {
    return true; // a pattern JavaScript cannot read is not ours to judge
  }
}
