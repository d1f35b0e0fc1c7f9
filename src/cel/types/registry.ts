/**
 * Derives CEL types from OpenAPI schemas (design/graph.md §17.1, design/platform.md §3.3) and collects the
 * object types it creates, in dependency order, so they can be registered in an engine
 * environment used for type checking. Evaluation happens in a `dyn` environment over plain JSON;
 * these types are for checking only.
 *
 * Mapping: integer → int, number → double, boolean → bool, string → string (format byte → bytes,
 * date-time → google.protobuf.Timestamp), array → list<items>, object with additionalProperties →
 * map<string, V>, object with properties → a registered object type, object with neither →
 * map<string, dyn> (kgraph), int-or-string / preserve-unknown-fields / anyOf / oneOf / no type → dyn.
 * `$ref` and `allOf` are resolved first; a reference cycle is cut to dyn. Schemas are treated as
 * immutable: derived types are memoised per schema object.
 */
import { flatten, RESOURCE_METADATA_SCHEMA, singleRef, withTypeAndObjectMeta } from './flatten.ts';
import { type OpenApiSchema, refName, type SchemaResolver } from './openapi.ts';
import { isTypelessPreserveUnknown } from './typeless.ts';

/** An object type derived from a schema: field name → CEL type name. */
export interface ObjectTypeInfo {
  readonly name: string;
  readonly fields: Readonly<Record<string, string>>;
  /** Properties left out under `hideTypeless` (only x-kubernetes-preserve-unknown-fields, no type). */
  readonly hidden?: readonly string[];
}

/** What `registerInto` needs from an engine environment (a raw cel-js `Environment` fits). */
export interface TypeRegistrationTarget {
  registerType(name: string, definition: { fields: Record<string, string> }): unknown;
}

export interface TypeOptions {
  /** The schema is the root of a resource: apiVersion, kind and metadata are always present. */
  readonly resourceRoot?: boolean;
  /**
   * kro's reading (./typeless.ts): an object property whose schema has only
   * x-kubernetes-preserve-unknown-fields and no type is not a field ("undefined field"). Default: dyn.
   */
  readonly hideTypeless?: boolean;
}

/** Memo tables of one reading (plain or kro's typeless rule): derived types depend on it. */
interface Memos {
  memo: WeakMap<OpenApiSchema, string>;
  memoRoot: WeakMap<OpenApiSchema, string>;
  refMemo: Map<string, string>;
  rootRefMemo: Map<string, string>;
}

const newMemos = (): Memos => ({
  memo: new WeakMap(),
  memoRoot: new WeakMap(),
  refMemo: new Map(),
  rootRefMemo: new Map(),
});

export interface RegistryOptions {
  readonly resolve?: SchemaResolver;
  /** Type names already used in the target environment (custom types of the CEL libraries). */
  readonly reserved?: Iterable<string>;
}

const BUILTIN_NAMES = new Set([
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'bytes',
  'list',
  'map',
  'dyn',
  'null',
  'null_type',
  'type',
  'optional',
  'optional_type',
  'timestamp',
  'duration',
]);

export class SchemaTypeRegistry {
  readonly #resolve: SchemaResolver | undefined;
  readonly #used = new Set<string>();
  readonly #objects: ObjectTypeInfo[] = [];
  readonly #byName = new Map<string, ObjectTypeInfo>();
  readonly #plain = newMemos();
  readonly #kro = newMemos();
  readonly #registered = new WeakMap<object, number>();
  /** Refs that could not be resolved (their fields were typed dyn). */
  readonly unresolvedRefs = new Set<string>();

  constructor(options: RegistryOptions = {}) {
    this.#resolve = options.resolve;
    for (const name of options.reserved ?? []) this.#used.add(name);
  }

  get resolve(): SchemaResolver | undefined {
    return this.#resolve;
  }

  /** The CEL type name for `schema`; object types are created (named after `nameHint`) as needed. */
  typeFor(schema: OpenApiSchema, nameHint: string, options: TypeOptions = {}): string {
    const hide = options.hideTypeless === true;
    return this.#typeOf(schema, nameHint, options.resourceRoot === true, new Set(), new Set(), hide);
  }

  /** Object types that left out a property `name` under `hideTypeless`. */
  hiding(name: string): ObjectTypeInfo[] {
    return this.#objects.filter((o) => o.hidden?.includes(name));
  }

  /** Object types created so far, dependencies first. */
  get objectTypes(): readonly ObjectTypeInfo[] {
    return this.#objects;
  }

  objectType(name: string): ObjectTypeInfo | undefined {
    return this.#byName.get(name);
  }

  /**
   * Registers every object type not yet registered in `target`, dependencies first. Call it again
   * after deriving more types. Register into one environment (children inherit the types).
   */
  /**
   * A key for the object types created so far: registries with equal keys register the same types
   * (names and fields), so an environment holding one's types serves the other.
   */
  signature(): string {
    return this.#objects
      .map(
        (o) =>
          `${o.name}{${Object.entries(o.fields)
            .map(([k, v]) => `${k}:${v}`)
            .join(',')}}`,
      )
      .join(';');
  }

  registerInto(target: TypeRegistrationTarget): void {
    const done = this.#registered.get(target) ?? 0;
    for (const info of this.#objects.slice(done)) {
      target.registerType(info.name, { fields: { ...info.fields } });
    }
    this.#registered.set(target, this.#objects.length);
  }

  #typeOf(
    schema: OpenApiSchema,
    hint: string,
    root: boolean,
    activeRefs: Set<string>,
    activeObjects: Set<OpenApiSchema>,
    hide: boolean,
  ): string {
    const memos = hide ? this.#kro : this.#plain;
    const memo = root ? memos.memoRoot : memos.memo;
    const cached = memo.get(schema);
    if (cached !== undefined) return cached;
    const ref = singleRef(schema);
    const refMemo = root ? memos.rootRefMemo : memos.refMemo;
    if (ref !== undefined) {
      const byRef = refMemo.get(ref);
      if (byRef !== undefined) return byRef;
      if (!root) {
        if (activeRefs.has(ref)) return 'dyn';
        hint = refName(ref).split('.').pop() || hint;
      }
    }
    if (activeObjects.has(schema)) return 'dyn';
    const flat = flatten(schema, this.#resolve, activeRefs);
    for (const u of flat.unresolved) this.unresolvedRefs.add(u);
    if (flat.cyclic && flat.refs.length === 0) return 'dyn';
    const refs = new Set(activeRefs);
    for (const r of flat.refs) refs.add(r);
    activeObjects.add(schema);
    try {
      const result = this.#derive(flat.schema, hint, root, refs, activeObjects, hide);
      memo.set(schema, result);
      if (ref !== undefined) refMemo.set(ref, result);
      return result;
    } finally {
      activeObjects.delete(schema);
    }
  }

  #derive(
    s: OpenApiSchema,
    hint: string,
    root: boolean,
    activeRefs: Set<string>,
    activeObjects: Set<OpenApiSchema>,
    hide: boolean,
  ): string {
    if (isSchemaless(s)) return 'dyn';
    const embedded = root || s['x-kubernetes-embedded-resource'] === true;
    const type = schemaKind(s);
    switch (type) {
      case 'string':
        if (s.format === 'byte') return 'bytes';
        if (s.format === 'date-time') return 'google.protobuf.Timestamp';
        return 'string';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'array':
        if (s.items === undefined) return 'list<dyn>';
        return `list<${this.#typeOf(s.items, `${hint}_item`, false, activeRefs, activeObjects, hide)}>`;
      case 'object': {
        const ap = s.additionalProperties;
        if (ap !== undefined && ap !== false && !embedded) {
          if (ap === true) return 'map<string, dyn>';
          return `map<string, ${this.#typeOf(ap, `${hint}_value`, false, activeRefs, activeObjects, hide)}>`;
        }
        if (s.properties === undefined && !embedded) return 'map<string, dyn>';
        const full = embedded ? withTypeAndObjectMeta(s) : s;
        const fields: Record<string, string> = {};
        const hidden: string[] = [];
        for (const [name, sub] of Object.entries(full.properties ?? {})) {
          if (name === '__proto__') continue; // cannot be a CEL field name; never in Kubernetes schemas
          if (hide && isTypelessPreserveUnknown(sub)) {
            hidden.push(name);
            continue;
          }
          const fieldHint = sub === RESOURCE_METADATA_SCHEMA ? 'ObjectMeta' : `${hint}_${name}`;
          fields[name] = this.#typeOf(sub, fieldHint, false, activeRefs, activeObjects, hide);
        }
        return this.#addObject(hint, fields, hidden);
      }
      default:
        return 'dyn';
    }
  }

  #addObject(hint: string, fields: Record<string, string>, hidden: string[]): string {
    const name = this.#uniqueName(hint);
    const info: ObjectTypeInfo = hidden.length > 0 ? { name, fields, hidden } : { name, fields };
    this.#objects.push(info);
    this.#byName.set(name, info);
    return name;
  }

  #uniqueName(hint: string): string {
    let base = hint.replace(/[^A-Za-z0-9_]/g, '_');
    if (!/^[A-Za-z]/.test(base)) base = `T_${base}`;
    if (base.length < 2 || BUILTIN_NAMES.has(base)) base = `${base}_t`;
    let name = base;
    for (let n = 2; this.#used.has(name); n++) name = `${base}_${n}`;
    this.#used.add(name);
    return name;
  }
}

/** The JSON type a (flattened) schema describes, inferring `object`/`array` from its keywords. */
export function schemaKind(s: OpenApiSchema): string | undefined {
  if (s.type !== undefined) return s.type;
  if (s.properties !== undefined || s.additionalProperties !== undefined) return 'object';
  if (s.items !== undefined) return 'array';
  return undefined;
}

/**
 * Schemaless (design/graph.md §6.4, §17.1): preserve-unknown-fields, int-or-string, anyOf/oneOf, or no type at all.
 * The expected type there is dyn and values keep their JSON shape.
 */
export function isSchemaless(s: OpenApiSchema): boolean {
  return (
    s['x-kubernetes-preserve-unknown-fields'] === true ||
    s['x-kubernetes-int-or-string'] === true ||
    (s.anyOf?.length ?? 0) > 0 ||
    (s.oneOf?.length ?? 0) > 0 ||
    schemaKind(s) === undefined
  );
}

/** Convenience form of {@link SchemaTypeRegistry.typeFor}. */
export function celTypeForSchema(
  schema: OpenApiSchema,
  registry: SchemaTypeRegistry,
  nameHint: string,
  options: TypeOptions = {},
): string {
  return registry.typeFor(schema, nameHint, options);
}
