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
  const run = new MarkerRun(schema, path, sink);
  const seen = new Set<string>();
  for (const m of markers) {
    if (seen.has(m.key) && !REPEATABLE.has(m.key)) {
      sink.warning(SchemaCode.InvalidMarkerValue, path, `duplicate marker '${m.key}'; the last one wins`);
    }
    seen.add(m.key);
    run.apply(m);
  }
  run.checkLists();
  if (schema.default !== undefined) checkDefault(schema, path, sink);
  return run.result;
}

/** The markers of one field applied to its schema: per kind of marker, then the list checks over all of them. */
class MarkerRun {
  readonly result: AppliedMarkers = { required: false };
  private readonly listMapKeys: string[] = [];
  private listTypeSource: string | undefined;
  private readonly type: OpenAPISchema['type'];

  constructor(
    private readonly schema: OpenAPISchema,
    private readonly path: string,
    private readonly sink: DiagnosticSink,
  ) {
    this.type = schema.type;
  }

  apply(m: Marker): void {
    switch (m.key) {
      case 'minimum':
      case 'maximum':
        this.number(m);
        return;
      case 'enum':
      case 'pattern':
      case 'minLength':
      case 'maxLength':
        this.string(m);
        return;
      case 'minItems':
      case 'maxItems':
      case 'uniqueItems':
      case 'listType':
      case 'listMapKey':
        this.array(m);
        return;
      default:
        this.general(m);
        return;
    }
  }

  /** Markers of any type: required, default, description, immutable, validation. */
  private general(m: Marker): void {
    const { schema, path, sink } = this;
    switch (m.key) {
      case 'required': {
        const b = parseBool(m.value);
        if (b === undefined) this.badValue(m, 'expected true or false');
        else this.result.required = b;
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
      case 'immutable': {
        const b = parseBool(m.value);
        if (b === undefined) this.badValue(m, 'expected true or false');
        else if (b) this.addRule('self == oldSelf', 'field is immutable');
        break;
      }
      case 'validation':
        if (m.value.trim() === '') this.badValue(m, 'expected a CEL expression');
        else this.addRule(m.value, 'validation failed');
        break;
    }
  }

  private number(m: Marker): void {
    if (this.type !== 'integer' && this.type !== 'number') {
      this.notApplicable(m, 'integer and float');
      return;
    }
    const n = parseFloatStrict(m.value);
    if (n === undefined) this.badValue(m, 'expected a number');
    else this.schema[m.key as 'minimum' | 'maximum'] = n;
  }

  private string(m: Marker): void {
    const { schema, path, sink, type } = this;
    if (m.key === 'enum') {
      if (type !== 'string' && type !== 'integer') {
        this.notApplicable(m, 'string and integer');
        return;
      }
      const members = m.value.split(',').map((s) => s.trim());
      if (members.some((s) => s === '')) {
        sink.error(SchemaCode.InvalidEnum, path, `enum '${m.value}' has an empty value`);
        return;
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
      return;
    }
    if (type !== 'string') {
      this.notApplicable(m, 'string');
      return;
    }
    if (m.key === 'pattern') {
      if (m.value === '') {
        sink.error(SchemaCode.InvalidPattern, path, 'pattern must not be empty');
        return;
      }
      try {
        RE2JS.compile(m.value);
        schema.pattern = m.value;
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        sink.error(SchemaCode.InvalidPattern, path, `invalid pattern '${m.value}': ${why}`);
      }
      return;
    }
    const n = parseNonNegativeInt(m.value);
    if (n === undefined) this.badValue(m, 'expected a non-negative integer');
    else schema[m.key as 'minLength' | 'maxLength'] = n;
  }

  private array(m: Marker): void {
    if (this.type !== 'array') {
      this.notApplicable(m, 'arrays');
      return;
    }
    switch (m.key) {
      case 'minItems':
      case 'maxItems': {
        const n = parseNonNegativeInt(m.value);
        if (n === undefined) this.badValue(m, 'expected a non-negative integer');
        else this.schema[m.key] = n;
        break;
      }
      case 'uniqueItems': {
        const b = parseBool(m.value);
        if (b === undefined) this.badValue(m, 'expected true or false');
        else if (b) this.setListType(m, 'set');
        break;
      }
      case 'listType':
        if (m.value !== 'atomic' && m.value !== 'set' && m.value !== 'map') {
          this.badValue(m, 'expected atomic, set or map');
          break;
        }
        this.setListType(m, m.value);
        break;
      case 'listMapKey':
        if (m.value === '') this.badValue(m, 'expected a field name');
        else if (this.listMapKeys.includes(m.value)) {
          this.sink.error(SchemaCode.InvalidListMapKey, this.path, `duplicate listMapKey '${m.value}'`);
        } else this.listMapKeys.push(m.value);
        break;
    }
  }

  /** listType, listMapKey and the items of a set, checked together once every marker is applied. */
  checkLists(): void {
    const { schema, path, sink, listMapKeys } = this;
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
        `${this.listTypeSource ?? 'listType=set'} needs scalar items (string, integer, float, boolean)`,
      );
    }
  }

  private notApplicable(m: Marker, allowed: string): void {
    this.sink.error(
      SchemaCode.MarkerNotApplicable,
      this.path,
      `marker '${m.key}' applies only to ${allowed}, not to ${this.type ?? 'untyped'}`,
    );
  }

  private badValue(m: Marker, expected: string): void {
    this.sink.error(
      SchemaCode.InvalidMarkerValue,
      this.path,
      `invalid value '${m.value}' for marker '${m.key}': ${expected}`,
    );
  }

  private addRule(rule: string, message: string): void {
    this.schema['x-kubernetes-validations'] = [
      ...(this.schema['x-kubernetes-validations'] ?? []),
      { rule, message },
    ];
  }

  private setListType(m: Marker, value: 'atomic' | 'set' | 'map'): void {
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
