/**
 * `default` markers: parsing the text by the field's type, and checking the value against the
 * field's own constraints (the API server rejects a CRD whose defaults violate them). Also holds the
 * strict number and boolean parsers the other markers share.
 */
import { RE2JS } from 're2js';
import { isRecord } from '../../diag/record.ts';
import { SchemaCode } from '../codes.ts';
import type { OpenAPISchema } from '../openapi.ts';
import type { DiagnosticSink } from '../report.ts';
import type { Marker } from './markers.ts';

export function parseBool(value: string): boolean | undefined {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

export function parseNonNegativeInt(value: string): number | undefined {
  if (!/^\d+$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) ? n : undefined;
}

export function parseFloatStrict(value: string): number | undefined {
  const t = value.trim();
  if (t === '' || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

export function parseIntStrict(value: string): number | undefined {
  const t = value.trim();
  if (!/^[-+]?\d+$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Parses a `default` value for a schema; returns an error message when it does not fit. */
export function parseDefault(schema: OpenAPISchema, marker: Marker): { value: unknown } | { error: string } {
  const v = marker.value;
  switch (schema.type) {
    case 'string':
      return { value: v };
    case 'integer': {
      const n = parseIntStrict(v);
      return n === undefined ? { error: `default '${v}' is not an integer` } : { value: n };
    }
    case 'number': {
      const n = parseFloatStrict(v);
      return n === undefined ? { error: `default '${v}' is not a number` } : { value: n };
    }
    case 'boolean': {
      const b = parseBool(v.trim());
      return b === undefined ? { error: `default '${v}' is not a boolean (true or false)` } : { value: b };
    }
    default: {
      let parsed: unknown;
      try {
        parsed = JSON.parse(v);
      } catch {
        return { error: `default '${v}' is not valid JSON` };
      }
      if (schema.type === 'array' && !Array.isArray(parsed))
        return { error: `default '${v}' is not a JSON array` };
      if (schema.type === 'object' && !isRecord(parsed))
        return { error: `default '${v}' is not a JSON object` };
      return { value: parsed };
    }
  }
}

export /** The API server rejects a CRD whose defaults violate the field's own constraints; report it here. */
function checkDefault(schema: OpenAPISchema, path: string, sink: DiagnosticSink): void {
  const v = schema.default;
  const fail = (why: string) =>
    sink.error(SchemaCode.InvalidDefault, path, `default ${JSON.stringify(v)} ${why}`);
  if (schema.enum && !schema.enum.includes(v))
    fail(`is not one of the enum values ${JSON.stringify(schema.enum)}`);
  if (typeof v === 'number') {
    if (schema.minimum !== undefined && v < schema.minimum) fail(`is below the minimum ${schema.minimum}`);
    if (schema.maximum !== undefined && v > schema.maximum) fail(`is above the maximum ${schema.maximum}`);
  }
  if (typeof v === 'string') {
    const length = [...v].length;
    if (schema.minLength !== undefined && length < schema.minLength)
      fail(`is shorter than minLength ${schema.minLength}`);
    if (schema.maxLength !== undefined && length > schema.maxLength)
      fail(`is longer than maxLength ${schema.maxLength}`);
    if (schema.pattern !== undefined) {
      try {
        if (!RE2JS.compile(schema.pattern).matcher(v).find())
          fail(`does not match the pattern ${schema.pattern}`);
      } catch {
        // an invalid pattern is reported by the pattern marker
      }
    }
  }
  if (Array.isArray(v)) {
    if (schema.minItems !== undefined && v.length < schema.minItems)
      fail(`has fewer than minItems ${schema.minItems}`);
    if (schema.maxItems !== undefined && v.length > schema.maxItems)
      fail(`has more than maxItems ${schema.maxItems}`);
  }
}
