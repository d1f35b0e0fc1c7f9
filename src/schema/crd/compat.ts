/**
 * Breaking-change detection between the CRD an RGD generated before and the one it generates now
 * (design/rgd.md §19.4). An update that would invalidate stored instances is blocked unless the RGD
 * carries `kro.run/allow-breaking-changes: "true"`. The base checks are field removal, type changes,
 * new required fields without default, enum restriction and pattern changes; `conservative` (gate
 * ConservativeCRDComparison) adds tightened bounds and newly required existing fields.
 */
import equal from 'fast-deep-equal';
import { isRecord } from '../../diag/record.ts';
import type { OpenAPISchema } from '../openapi.ts';

export const ALLOW_BREAKING_CHANGES_ANNOTATION = 'kro.run/allow-breaking-changes';

export type ChangeKind =
  | 'VersionRemoved'
  | 'ScopeChanged'
  | 'PropertyRemoved'
  | 'PropertyAdded'
  | 'TypeChanged'
  | 'RequiredAdded'
  | 'RequiredRemoved'
  | 'RequiredDefaultRemoved'
  | 'EnumRestricted'
  | 'EnumExpanded'
  | 'PatternAdded'
  | 'PatternChanged'
  | 'PatternRemoved'
  | 'ConstraintTightened'
  | 'ConstraintRelaxed'
  | 'DefaultChanged'
  | 'DescriptionChanged';

export interface SchemaChange {
  /** Dotted path in the schema, e.g. `spec.replicas` (`[]` marks array items). */
  path: string;
  kind: ChangeKind;
  breaking: boolean;
  message: string;
}

export interface CompareOptions {
  /** Gate ConservativeCRDComparison: also treat tightened constraints and newly required fields as breaking. */
  conservative?: boolean;
}

export interface CompatReport {
  breaking: SchemaChange[];
  nonBreaking: SchemaChange[];
}

const BOUNDS = [
  ['minimum', 'lower'],
  ['maximum', 'upper'],
  ['minLength', 'lower'],
  ['maxLength', 'upper'],
  ['minItems', 'lower'],
  ['maxItems', 'upper'],
] as const;

class Collector implements CompatReport {
  readonly breaking: SchemaChange[] = [];
  readonly nonBreaking: SchemaChange[] = [];
  add(path: string, kind: ChangeKind, breaking: boolean, message: string): void {
    (breaking ? this.breaking : this.nonBreaking).push({ path: path || '.', kind, breaking, message });
  }
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function compare(path: string, a: OpenAPISchema, b: OpenAPISchema, c: Collector, o: CompareOptions): void {
  if (a.description !== b.description) c.add(path, 'DescriptionChanged', false, 'description changed');
  if (!equal(a.default, b.default)) c.add(path, 'DefaultChanged', false, 'default changed');
  if (a.type !== b.type) {
    c.add(path, 'TypeChanged', true, `type changed from ${a.type ?? 'untyped'} to ${b.type ?? 'untyped'}`);
    return;
  }
  if (a.pattern !== b.pattern) {
    if (a.pattern === undefined) c.add(path, 'PatternAdded', true, `pattern ${b.pattern} added`);
    else if (b.pattern === undefined) c.add(path, 'PatternRemoved', false, 'pattern removed');
    else c.add(path, 'PatternChanged', true, `pattern changed from ${a.pattern} to ${b.pattern}`);
  }
  for (const [name, side] of BOUNDS) {
    const x = a[name];
    const y = b[name];
    if (x === y) continue;
    const tightened = y !== undefined && (x === undefined || (side === 'lower' ? y > x : y < x));
    c.add(
      path,
      tightened ? 'ConstraintTightened' : 'ConstraintRelaxed',
      tightened && o.conservative === true,
      `${name} changed from ${x ?? 'none'} to ${y ?? 'none'}`,
    );
  }
  if (a.enum && b.enum) {
    for (const v of a.enum) {
      if (!b.enum.some((w) => equal(v, w)))
        c.add(path, 'EnumRestricted', true, `enum value ${JSON.stringify(v)} removed`);
    }
    for (const v of b.enum) {
      if (!a.enum.some((w) => equal(v, w)))
        c.add(path, 'EnumExpanded', false, `enum value ${JSON.stringify(v)} added`);
    }
  } else if (!a.enum && b.enum) {
    c.add(path, 'EnumRestricted', true, 'enum added');
  }

  const aProps = a.properties ?? {};
  const bProps = b.properties ?? {};
  const aReq = new Set(a.required ?? []);
  const bReq = new Set(b.required ?? []);
  for (const [name, prop] of Object.entries(aProps)) {
    const next = bProps[name];
    if (next === undefined) c.add(join(path, name), 'PropertyRemoved', true, 'field removed');
    else compare(join(path, name), prop, next, c, o);
  }
  for (const [name, prop] of Object.entries(bProps)) {
    if (name in aProps) continue;
    const requiredWithoutDefault = bReq.has(name) && prop.default === undefined;
    c.add(
      join(path, name),
      'PropertyAdded',
      requiredWithoutDefault,
      requiredWithoutDefault ? 'new required field without a default' : 'field added',
    );
  }
  for (const name of bReq) {
    if (!(name in aProps) || aReq.has(name)) continue;
    c.add(join(path, name), 'RequiredAdded', o.conservative === true, 'existing field became required');
  }
  for (const name of aReq) {
    if (!bReq.has(name)) c.add(join(path, name), 'RequiredRemoved', false, 'field no longer required');
    else if (aProps[name]?.default !== undefined && bProps[name]?.default === undefined && name in bProps) {
      c.add(
        join(path, name),
        'RequiredDefaultRemoved',
        o.conservative === true,
        'default of a required field removed',
      );
    }
  }
  if (a.items && b.items) compare(`${path}[]`, a.items, b.items, c, o);
  else if (a.items && !b.items) c.add(`${path}[]`, 'PropertyRemoved', true, 'items schema removed');
  const aAdd = typeof a.additionalProperties === 'object' ? a.additionalProperties : undefined;
  const bAdd = typeof b.additionalProperties === 'object' ? b.additionalProperties : undefined;
  if (aAdd && bAdd) compare(`${path}{}`, aAdd, bAdd, c, o);
  else if (aAdd && !bAdd && b.additionalProperties !== true && !b['x-kubernetes-preserve-unknown-fields']) {
    c.add(`${path}{}`, 'PropertyRemoved', true, 'map value schema removed');
  }
}

/** Compares two OpenAPI schemas (old → new). */
export function compareSchemas(
  oldSchema: OpenAPISchema,
  newSchema: OpenAPISchema,
  options: CompareOptions = {},
): CompatReport {
  const c = new Collector();
  compare('', oldSchema, newSchema, c, options);
  return { breaking: c.breaking, nonBreaking: c.nonBreaking };
}

/** Compares two CRDs: scope, versions (removed ones are breaking) and each kept version's schema. */
export function compareCrds(oldCrd: unknown, newCrd: unknown, options: CompareOptions = {}): CompatReport {
  const c = new Collector();
  const spec = (x: unknown) => (isRecord(x) && isRecord(x.spec) ? x.spec : {});
  const a = spec(oldCrd);
  const b = spec(newCrd);
  if ((a.scope ?? 'Namespaced') !== (b.scope ?? 'Namespaced')) {
    c.add('', 'ScopeChanged', true, `scope changed from ${String(a.scope)} to ${String(b.scope)}`);
  }
  const versions = (s: Record<string, unknown>) => {
    const out = new Map<string, OpenAPISchema>();
    if (Array.isArray(s.versions)) {
      for (const v of s.versions) {
        if (isRecord(v) && typeof v.name === 'string') {
          const schema =
            isRecord(v.schema) && isRecord(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : {};
          out.set(v.name, schema as OpenAPISchema);
        }
      }
    }
    return out;
  };
  const bv = versions(b);
  for (const [name, schema] of versions(a)) {
    const next = bv.get(name);
    if (!next) {
      c.add(name, 'VersionRemoved', true, `version ${name} removed`);
      continue;
    }
    const sub = compareSchemas(schema, next, options);
    for (const ch of [...sub.breaking, ...sub.nonBreaking]) {
      c.add(ch.path === '.' ? name : `${name}:${ch.path}`, ch.kind, ch.breaking, ch.message);
    }
  }
  return { breaking: c.breaking, nonBreaking: c.nonBreaking };
}

/** True when the RGD (or any object) opts out of breaking-change protection. */
export function allowsBreakingChanges(obj: unknown): boolean {
  const annotations = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata.annotations : undefined;
  return isRecord(annotations) && annotations[ALLOW_BREAKING_CHANGES_ANNOTATION] === 'true';
}
