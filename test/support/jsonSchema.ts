/**
 * The JSON output schemas the command pages document (docs/cli/*.md), and a checker for the subset of
 * JSON Schema they use: `type` (one or a list, `integer` included), `enum`, `const`, `properties`,
 * `required`, `additionalProperties` (false or a schema), `items`, `anyOf`. A page declares a schema as
 *
 *   <!-- json-schema: NAME -->
 *   ```json
 *   { "type": "object", … }
 *   ```
 *
 * and test/unit/cli/json-schemas.test.ts (plus the cluster tests of `deploy` and `get`) check the real
 * output of each command against it, so the page cannot describe a shape the command does not print.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  description?: string;
}

const pagesDir = resolve(import.meta.dirname, '../../docs/cli');
const MARKER = /<!-- json-schema: ([\w.-]+) -->\n```json\n([\s\S]*?)\n```/g;

/** Every schema the command pages declare, by name (a name twice is an error). */
export function documentedSchemas(dir = pagesDir): Map<string, { page: string; schema: JsonSchema }> {
  const out = new Map<string, { page: string; schema: JsonSchema }>();
  for (const page of readdirSync(dir).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(dir, page), 'utf8');
    for (const m of text.matchAll(MARKER)) {
      if (out.has(m[1]!)) throw new Error(`json-schema ${m[1]} declared twice (${page})`);
      out.set(m[1]!, { page, schema: JSON.parse(m[2]!) as JsonSchema });
    }
  }
  return out;
}

/** The schema NAME of the command pages; throws when no page declares it. */
export function documentedSchema(name: string): JsonSchema {
  const found = documentedSchemas().get(name);
  if (!found) throw new Error(`no docs/cli page declares json-schema ${name}`);
  return found.schema;
}

/** Where `value` breaks `schema`, one line per problem (`$.objects[0].kind: …`); empty when it fits. */
export function schemaViolations(value: unknown, schema: JsonSchema, at = '$'): string[] {
  if (schema.anyOf) {
    const each = schema.anyOf.map((s) => schemaViolations(value, s, at));
    if (each.some((v) => v.length === 0)) return [];
    return [`${at}: matches none of anyOf (${each.map((v) => v[0]).join(' | ')})`];
  }
  if (schema.const !== undefined && JSON.stringify(value) !== JSON.stringify(schema.const))
    return [`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`];
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    return [`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => hasType(value, t)))
      return [`${at}: ${typeName(value)} is not ${types.join(' or ')}`];
  }
  const out: string[] = [];
  if (Array.isArray(value) && schema.items)
    value.forEach((v, i) => {
      out.push(...schemaViolations(v, schema.items!, `${at}[${i}]`));
    });
  if (isObject(value)) {
    for (const key of schema.required ?? []) if (!(key in value)) out.push(`${at}: ${key} is missing`);
    for (const [key, v] of Object.entries(value)) {
      const property = schema.properties?.[key];
      if (property) out.push(...schemaViolations(v, property, `${at}.${key}`));
      else if (schema.additionalProperties === false) out.push(`${at}: ${key} is not documented`);
      else if (typeof schema.additionalProperties === 'object')
        out.push(...schemaViolations(v, schema.additionalProperties, `${at}.${key}`));
    }
  }
  return out;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    case 'integer':
      return Number.isInteger(value);
    default:
      return typeof value === type;
  }
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
