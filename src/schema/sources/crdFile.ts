/**
 * Schema source over CustomResourceDefinition manifests (files given with `--crd`, or CRD objects
 * the caller already holds, such as CRDs generated from RGDs in the same input). Each served version
 * contributes its `openAPIV3Schema`; `metadata` is pointed at the real ObjectMeta schema when one is
 * supplied, as the API server does when it publishes CRD schemas.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { Diagnostic } from '../../diag/diagnostic.ts';
import { isRecord } from '../../diag/record.ts';
import { SchemaCode } from '../codes.ts';
import { COMPONENT_REF_PREFIX, type OpenAPISchema, type SchemaComponents } from '../openapi.ts';
import { joinApiVersion, type ResolvedSchema, type SchemaSource } from './types.ts';

export const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

export interface CrdSourceOptions {
  /** Components that hold ObjectMeta (and what it references), e.g. from the offline bundle. */
  metaComponents?: SchemaComponents;
}

interface Entry {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  schema: OpenAPISchema;
  origin: string;
}

export class CrdSchemaSource implements SchemaSource {
  readonly name = 'crd-file' as const;
  readonly diagnostics: Diagnostic[] = [];
  private readonly entries = new Map<string, Entry>();
  private readonly origins: string[] = [];
  private readonly metaComponents: SchemaComponents;

  constructor(options: CrdSourceOptions = {}) {
    this.metaComponents = options.metaComponents ?? {};
  }

  /** Reads every CRD document of a YAML file; other documents are ignored. */
  addFile(path: string): void {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.report(path, `cannot read CRD file: ${why}`);
      return;
    }
    this.addText(path, text);
  }

  addText(origin: string, text: string): void {
    this.origins.push(origin);
    const docs = parseAllDocuments(text, { uniqueKeys: false }); // last value wins, as kubectl reads it
    if (!Array.isArray(docs)) return;
    docs.forEach((doc, i) => {
      if (doc.errors.length > 0) {
        this.report(origin, `document ${i + 1} is not valid YAML: ${doc.errors[0]?.message ?? ''}`);
        return;
      }
      const value: unknown = doc.toJS();
      if (isRecord(value) && value.kind === 'CustomResourceDefinition') this.addObject(value, origin);
    });
  }

  /** Adds one CRD object. Returns false (with a diagnostic) when it is unusable. */
  addObject(crd: unknown, origin = 'CRD'): boolean {
    if (!this.origins.includes(origin)) this.origins.push(origin);
    if (!isRecord(crd) || !isRecord(crd.spec)) return this.report(origin, 'CRD has no spec');
    const { group, names, scope, versions } = crd.spec;
    const crdName = isRecord(crd.metadata) ? String(crd.metadata.name ?? '?') : '?';
    if (typeof group !== 'string' || !isRecord(names) || typeof names.kind !== 'string') {
      return this.report(origin, `CRD ${crdName}: spec.group and spec.names.kind are required`);
    }
    if (!Array.isArray(versions) || versions.length === 0) {
      return this.report(origin, `CRD ${crdName}: spec.versions is empty`);
    }
    const namespaced = scope !== 'Cluster';
    const plural = typeof names.plural === 'string' ? names.plural : '';
    for (const v of versions) {
      if (!isRecord(v) || typeof v.name !== 'string') continue;
      if (v.served === false) continue;
      const openAPI = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
      const schema: OpenAPISchema = isRecord(openAPI)
        ? (openAPI as OpenAPISchema)
        : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      this.entries.set(key(group, v.name, names.kind), {
        group,
        version: v.name,
        kind: names.kind,
        plural,
        namespaced,
        schema,
        origin,
      });
    }
    return true;
  }

  describe(): string {
    return this.origins.length > 0 ? `CRD files (${this.origins.join(', ')})` : 'CRD files (none given)';
  }

  lookup(group: string, version: string, kind: string): ResolvedSchema | undefined {
    const e = this.entries.get(key(group, version, kind));
    if (!e) return undefined;
    return {
      group: e.group,
      version: e.version,
      kind: e.kind,
      schema: this.withObjectMeta(e.schema),
      components: this.metaComponents,
      namespaced: e.namespaced,
      plural: e.plural,
      source: 'crd-file',
      origin: e.origin,
    };
  }

  /** Every kind the CRDs define (editors complete apiVersion and kind from it). */
  kinds(): { group: string; version: string; kind: string }[] {
    return [...this.entries.values()].map(({ group, version, kind }) => ({ group, version, kind }));
  }

  versionsOf(kind: string): string[] {
    return [...this.entries.values()]
      .filter((e) => e.kind === kind)
      .map((e) => joinApiVersion(e.group, e.version));
  }

  private withObjectMeta(schema: OpenAPISchema): OpenAPISchema {
    const properties: Record<string, OpenAPISchema> = { ...(schema.properties ?? {}) };
    properties.apiVersion ??= { type: 'string' };
    properties.kind ??= { type: 'string' };
    const meta = properties.metadata;
    const plainMeta = meta === undefined || (meta.type === 'object' && meta.properties === undefined);
    if (plainMeta && this.metaComponents[OBJECT_META] !== undefined) {
      properties.metadata = { $ref: `${COMPONENT_REF_PREFIX}${OBJECT_META}` };
    }
    return { ...schema, type: schema.type ?? 'object', properties };
  }

  private report(origin: string, message: string): false {
    this.diagnostics.push({
      severity: 'error',
      code: SchemaCode.InvalidCrdFile,
      message,
      location: { file: origin },
    });
    return false;
  }
}

function key(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}
