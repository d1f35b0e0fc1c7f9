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
import type { Marker, MarkerKey } from './markers.ts';

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
  const field = new MarkedField(schema, path, sink);
  const seen = new Set<string>();
  for (const m of markers) {
    if (seen.has(m.key) && !REPEATABLE.has(m.key)) {
      sink.warning(SchemaCode.InvalidMarkerValue, path, `duplicate marker '${m.key}'; the last one wins`);
    }
    seen.add(m.key);
    MARKERS[m.key](field, m);
  }
  field.checkLists();
  if (schema.default !== undefined) checkDefault(schema, path, sink);
  return { required: field.required };
}

/** What each marker does to the field: one entry per marker key (the type checks it is exhaustive). */
const MARKERS: Record<MarkerKey, (f: MarkedField, m: Marker) => void> = {
  required: (f, m) =>
    f.bool(m, (b) => {
      f.required = b;
    }),
  default: (f, m) => {
    const parsed = parseDefault(f.schema, m);
    if ('error' in parsed) f.sink.error(SchemaCode.InvalidDefault, f.path, parsed.error);
    else f.schema.default = parsed.value;
  },
  description: (f, m) => {
    f.schema.description = m.value;
  },
  minimum: (f, m) => f.numberBound(m),
  maximum: (f, m) => f.numberBound(m),
  enum: (f, m) => f.enumeration(m),
  pattern: (f, m) => f.pattern(m),
  minLength: (f, m) => f.count(m, 'string', 'string'),
  maxLength: (f, m) => f.count(m, 'string', 'string'),
  minItems: (f, m) => f.count(m, 'array', 'arrays'),
  maxItems: (f, m) => f.count(m, 'array', 'arrays'),
  uniqueItems: (f, m) => {
    if (f.requireType(m, 'array', 'arrays'))
      f.bool(m, (b) => {
        if (b) f.setListType(m, 'set');
      });
  },
  listType: (f, m) => {
    if (!f.requireType(m, 'array', 'arrays')) return;
    if (m.value !== 'atomic' && m.value !== 'set' && m.value !== 'map')
      f.badValue(m, 'expected atomic, set or map');
    else f.setListType(m, m.value);
  },
  listMapKey: (f, m) => f.listMapKey(m),
  immutable: (f, m) =>
    f.bool(m, (b) => {
      if (b) f.addRule('self == oldSelf', 'field is immutable');
    }),
  validation: (f, m) => {
    if (m.value.trim() === '') f.badValue(m, 'expected a CEL expression');
    else f.addRule(m.value, 'validation failed');
  },
};

/** One field's schema while its markers are applied, with the checks the markers share. */
class MarkedField {
  required = false;
  private readonly listMapKeys: string[] = [];
  /** The marker that set the list type, named when a later one conflicts. */
  private listTypeSource: string | undefined;

  constructor(
    readonly schema: OpenAPISchema,
    readonly path: string,
    readonly sink: DiagnosticSink,
  ) {}

  /** Whether the field has `type`; reports the marker as not applicable otherwise. */
  requireType(m: Marker, type: string, allowed: string): boolean {
    if (this.schema.type === type) return true;
    this.notApplicable(m, allowed);
    return false;
  }

  notApplicable(m: Marker, allowed: string): void {
    this.sink.error(
      SchemaCode.MarkerNotApplicable,
      this.path,
      `marker '${m.key}' applies only to ${allowed}, not to ${this.schema.type ?? 'untyped'}`,
    );
  }

  badValue(m: Marker, expected: string): void {
    this.sink.error(
      SchemaCode.InvalidMarkerValue,
      this.path,
      `invalid value '${m.value}' for marker '${m.key}': ${expected}`,
    );
  }

  bool(m: Marker, use: (b: boolean) => void): void {
    const b = parseBool(m.value);
    if (b === undefined) this.badValue(m, 'expected true or false');
    else use(b);
  }

  addRule(rule: string, message: string): void {
    this.schema['x-kubernetes-validations'] = [
      ...(this.schema['x-kubernetes-validations'] ?? []),
      { rule, message },
    ];
  }

  /** `minimum` / `maximum`: integer and float fields. */
  numberBound(m: Marker): void {
    const type = this.schema.type;
    if (type !== 'integer' && type !== 'number') {
      this.notApplicable(m, 'integer and float');
      return;
    }
    const n = parseFloatStrict(m.value);
    if (n === undefined) this.badValue(m, 'expected a number');
    else this.schema[m.key as 'minimum' | 'maximum'] = n;
  }

  /** `minLength` / `maxLength` on strings, `minItems` / `maxItems` on arrays. */
  count(m: Marker, type: string, allowed: string): void {
    if (!this.requireType(m, type, allowed)) return;
    const n = parseNonNegativeInt(m.value);
    if (n === undefined) this.badValue(m, 'expected a non-negative integer');
    else this.schema[m.key as 'minLength' | 'maxLength' | 'minItems' | 'maxItems'] = n;
  }

  enumeration(m: Marker): void {
    const type = this.schema.type;
    if (type !== 'string' && type !== 'integer') {
      this.notApplicable(m, 'string and integer');
      return;
    }
    const members = m.value.split(',').map((s) => s.trim());
    if (members.some((s) => s === '')) {
      this.sink.error(SchemaCode.InvalidEnum, this.path, `enum '${m.value}' has an empty value`);
      return;
    }
    if (type === 'string') {
      this.schema.enum = members;
      return;
    }
    const ints = members.map(parseIntStrict);
    const bad = members.find((_, i) => ints[i] === undefined);
    if (bad !== undefined)
      this.sink.error(SchemaCode.InvalidEnum, this.path, `enum value '${bad}' is not an integer`);
    else this.schema.enum = ints;
  }

  pattern(m: Marker): void {
    if (!this.requireType(m, 'string', 'string')) return;
    if (m.value === '') {
      this.sink.error(SchemaCode.InvalidPattern, this.path, 'pattern must not be empty');
      return;
    }
    try {
      RE2JS.compile(m.value);
      this.schema.pattern = m.value;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.sink.error(SchemaCode.InvalidPattern, this.path, `invalid pattern '${m.value}': ${why}`);
    }
  }

  setListType(m: Marker, value: 'atomic' | 'set' | 'map'): void {
    const current = this.schema['x-kubernetes-list-type'];
    if (current !== undefined && current !== value) {
      this.sink.error(
        SchemaCode.ListTypeConflict,
        this.path,
        `${m.key}=${m.value} conflicts with listType=${current}${this.listTypeSource ? ` (from ${this.listTypeSource})` : ''}`,
      );
      return;
    }
    this.schema['x-kubernetes-list-type'] = value;
    this.listTypeSource = `${m.key}=${m.value}`;
  }

  listMapKey(m: Marker): void {
    if (!this.requireType(m, 'array', 'arrays')) return;
    if (m.value === '') this.badValue(m, 'expected a field name');
    else if (this.listMapKeys.includes(m.value)) {
      this.sink.error(SchemaCode.InvalidListMapKey, this.path, `duplicate listMapKey '${m.value}'`);
    } else this.listMapKeys.push(m.value);
  }

  /** After every marker: list-map keys need listType=map (and the reverse), set items must be scalar. */
  checkLists(): void {
    const { schema, path, sink } = this;
    if (this.listMapKeys.length > 0) {
      if (schema['x-kubernetes-list-type'] !== 'map') {
        sink.error(SchemaCode.InvalidListMapKey, path, 'listMapKey requires listType=map');
      } else {
        schema['x-kubernetes-list-map-keys'] = this.listMapKeys;
        checkListMapKeys(schema, this.listMapKeys, path, sink);
      }
    } else if (schema['x-kubernetes-list-type'] === 'map') {
      sink.error(SchemaCode.InvalidListMapKey, path, 'listType=map requires at least one listMapKey');
    }
    if (schema['x-kubernetes-list-type'] === 'set' && !isScalar(schema.items)) {
      sink.error(
        SchemaCode.MarkerNotApplicable,
        path,
        `${this.listTypeSource ?? 'listType=set'} needs scalar items (string, integer, float, boolean)`,
      );
    }
  }
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
