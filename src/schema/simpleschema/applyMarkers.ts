/**
 * Applies parsed markers to the OpenAPI schema of one field. Each marker checks that it fits the
 * field's type and that its value parses, so a typo becomes a diagnostic with the field path instead
 * of a CRD the API server rejects later.
 */
import { RE2JS } from 're2js';
import { SchemaCode } from '../codes.ts';
import type { OpenAPISchema } from '../openapi.ts';
import type { DiagnosticSink } from '../report.ts';
import {
  checkDefault,
  parseBool,
  parseDefault,
  parseFloatStrict,
  parseIntStrict,
  parseNonNegativeInt,
} from './defaults.ts';
import type { Marker } from './markers.ts';

export interface AppliedMarkers {
  /** `required=true` was given. */
  required: boolean;
}

/** Markers that may repeat (listMapKey) or whose repeats are checked for conflicts instead (listType). */
const REPEATABLE = new Set(['listMapKey', 'listType']);

export function applyMarkers(
  schema: OpenAPISchema,
  markers: readonly Marker[],
  path: string,
  sink: DiagnosticSink,
): AppliedMarkers {
  const result: AppliedMarkers = { required: false };
  const seen = new Set<string>();
  const listMapKeys: string[] = [];
  let listTypeSource: string | undefined;
  const type = schema.type;
  const typeName = type ?? 'untyped';

  const notApplicable = (m: Marker, allowed: string): void =>
    sink.error(
      SchemaCode.MarkerNotApplicable,
      path,
      `marker '${m.key}' applies only to ${allowed}, not to ${typeName}`,
    );
  const badValue = (m: Marker, expected: string): void =>
    sink.error(
      SchemaCode.InvalidMarkerValue,
      path,
      `invalid value '${m.value}' for marker '${m.key}': ${expected}`,
    );
  const addRule = (rule: string, message: string): void => {
    schema['x-kubernetes-validations'] = [...(schema['x-kubernetes-validations'] ?? []), { rule, message }];
  };
  const setListType = (m: Marker, value: 'atomic' | 'set' | 'map'): void => {
    const current = schema['x-kubernetes-list-type'];
    if (current !== undefined && current !== value) {
      sink.error(
        SchemaCode.ListTypeConflict,
        path,
        `${m.key}=${m.value} conflicts with listType=${current}${listTypeSource ? ` (from ${listTypeSource})` : ''}`,
      );
      return;
    }
    schema['x-kubernetes-list-type'] = value;
    listTypeSource = `${m.key}=${m.value}`;
  };

  for (const m of markers) {
    if (seen.has(m.key) && !REPEATABLE.has(m.key)) {
      sink.warning(SchemaCode.InvalidMarkerValue, path, `duplicate marker '${m.key}'; the last one wins`);
    }
    seen.add(m.key);
    switch (m.key) {
      case 'required': {
        const b = parseBool(m.value);
        if (b === undefined) badValue(m, 'expected true or false');
        else result.required = b;
        break;
      }
      case 'default': {
        const parsed = parseDefault(schema, m);
        if ('error' in parsed) sink.error(SchemaCode.InvalidDefault, path, parsed.error);
        else schema.default = parsed.value;
        break;
      }
      case 'description':
        schema.description = m.value;
        break;
      case 'minimum':
      case 'maximum': {
        if (type !== 'integer' && type !== 'number') {
          notApplicable(m, 'integer and float');
          break;
        }
        const n = parseFloatStrict(m.value);
        if (n === undefined) badValue(m, 'expected a number');
        else schema[m.key] = n;
        break;
      }
      case 'enum': {
        if (type !== 'string' && type !== 'integer') {
          notApplicable(m, 'string and integer');
          break;
        }
        const members = m.value.split(',').map((s) => s.trim());
        if (members.some((s) => s === '')) {
          sink.error(SchemaCode.InvalidEnum, path, `enum '${m.value}' has an empty value`);
          break;
        }
        if (type === 'integer') {
          const ints = members.map(parseIntStrict);
          const bad = members.find((_, i) => ints[i] === undefined);
          if (bad !== undefined)
            sink.error(SchemaCode.InvalidEnum, path, `enum value '${bad}' is not an integer`);
          else schema.enum = ints;
        } else {
          schema.enum = members;
        }
        break;
      }
      case 'pattern': {
        if (type !== 'string') {
          notApplicable(m, 'string');
          break;
        }
        if (m.value === '') {
          sink.error(SchemaCode.InvalidPattern, path, 'pattern must not be empty');
          break;
        }
        try {
          RE2JS.compile(m.value);
          schema.pattern = m.value;
        } catch (err) {
          const why = err instanceof Error ? err.message : String(err);
          sink.error(SchemaCode.InvalidPattern, path, `invalid pattern '${m.value}': ${why}`);
        }
        break;
      }
      case 'minLength':
      case 'maxLength': {
        if (type !== 'string') {
          notApplicable(m, 'string');
          break;
        }
        const n = parseNonNegativeInt(m.value);
        if (n === undefined) badValue(m, 'expected a non-negative integer');
        else schema[m.key] = n;
        break;
      }
      case 'minItems':
      case 'maxItems': {
        if (type !== 'array') {
          notApplicable(m, 'arrays');
          break;
        }
        const n = parseNonNegativeInt(m.value);
        if (n === undefined) badValue(m, 'expected a non-negative integer');
        else schema[m.key] = n;
        break;
      }
      case 'uniqueItems': {
        if (type !== 'array') {
          notApplicable(m, 'arrays');
          break;
        }
        const b = parseBool(m.value);
        if (b === undefined) badValue(m, 'expected true or false');
        else if (b) setListType(m, 'set');
        break;
      }
      case 'listType': {
        if (type !== 'array') {
          notApplicable(m, 'arrays');
          break;
        }
        if (m.value !== 'atomic' && m.value !== 'set' && m.value !== 'map') {
          badValue(m, 'expected atomic, set or map');
          break;
        }
        setListType(m, m.value);
        break;
      }
      case 'listMapKey': {
        if (type !== 'array') {
          notApplicable(m, 'arrays');
          break;
        }
        if (m.value === '') badValue(m, 'expected a field name');
        else if (listMapKeys.includes(m.value)) {
          sink.error(SchemaCode.InvalidListMapKey, path, `duplicate listMapKey '${m.value}'`);
        } else listMapKeys.push(m.value);
        break;
      }
      case 'immutable': {
        const b = parseBool(m.value);
        if (b === undefined) badValue(m, 'expected true or false');
        else if (b) addRule('self == oldSelf', 'field is immutable');
        break;
      }
      case 'validation':
        if (m.value.trim() === '') badValue(m, 'expected a CEL expression');
        else addRule(m.value, 'validation failed');
        break;
    }
  }

  if (listMapKeys.length > 0) {
    if (schema['x-kubernetes-list-type'] !== 'map') {
      sink.error(SchemaCode.InvalidListMapKey, path, 'listMapKey requires listType=map');
    } else {
      schema['x-kubernetes-list-map-keys'] = listMapKeys;
      checkListMapKeys(schema, listMapKeys, path, sink);
    }
  } else if (schema['x-kubernetes-list-type'] === 'map') {
    sink.error(SchemaCode.InvalidListMapKey, path, 'listType=map requires at least one listMapKey');
  }
  if (schema['x-kubernetes-list-type'] === 'set' && !isScalar(schema.items)) {
    sink.error(
      SchemaCode.MarkerNotApplicable,
      path,
      `${listTypeSource ?? 'listType=set'} needs scalar items (string, integer, float, boolean)`,
    );
  }
  if (schema.default !== undefined) checkDefault(schema, path, sink);
  return result;
}

function isScalar(s: OpenAPISchema | undefined): boolean {
  return s?.type === 'string' || s?.type === 'integer' || s?.type === 'number' || s?.type === 'boolean';
}

/** The API server requires list-map keys to be scalar properties of the items, required or defaulted. */
function checkListMapKeys(
  schema: OpenAPISchema,
  keys: readonly string[],
  path: string,
  sink: DiagnosticSink,
): void {
  const items = schema.items;
  for (const key of keys) {
    const prop = items?.properties?.[key];
    if (!prop || !isScalar(prop)) {
      sink.error(
        SchemaCode.InvalidListMapKey,
        path,
        `listMapKey '${key}' must be a scalar field of the list items`,
      );
    } else if (!items?.required?.includes(key) && prop.default === undefined) {
      sink.error(
        SchemaCode.InvalidListMapKey,
        path,
        `listMapKey '${key}' must be required (required=true) or have a default in the list items`,
      );
    }
  }
}
