/**
 * The CRD generated for an RGD (design/rgd.md §19.4): name `<plural>.<group>`, one served and
 * storage version with the status subresource, `spec` from SimpleSchema, `status` from the inferred
 * types of the status expressions plus the controller-owned `conditions` and `state`, and printer
 * columns. Pure: the controller applies the result, `kgraph crd` prints it.
 */
import type { Diagnostic } from '../../diag/diagnostic.ts';
import { isRecord } from '../../diag/record.ts';
import { SchemaCode } from '../codes.ts';
import type { OpenAPISchema } from '../openapi.ts';
import { childPath, DiagnosticSink, type Locate } from '../report.ts';
import { resolveCustomTypes } from '../simpleschema/customTypes.ts';
import { FieldConverter } from '../simpleschema/fieldConverter.ts';
import { pluralize } from './pluralize.ts';
import { printerColumnsFor } from './printerColumns.ts';
import { type PrinterColumn, type RgdSchemaSection, readRgdSchemaSection } from './rgdSchema.ts';
import { literalStatusFieldTypes } from './statusLiteral.ts';
import {
  type StatusFieldTypes,
  statusSchemaFromFieldTypes,
  withStandardStatusFields,
} from './statusSchema.ts';

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: OpenAPISchema };
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
    }[];
  };
}

export interface GenerateCrdOptions {
  /**
   * Inferred status field types from the compiler (CEL result types mapped to OpenAPI). When absent,
   * the literal structure of `spec.schema.status` is used: string templates are strings and
   * standalone expressions are untyped (`x-kubernetes-preserve-unknown-fields`).
   */
  statusTypes?: StatusFieldTypes;
  /** Field path of `spec.schema` in the document. Default `spec.schema`. */
  path?: string;
  locate?: Locate;
}

export interface GeneratedCrd {
  /** Undefined when the schema section has errors that prevent generation. */
  crd: CustomResourceDefinition | undefined;
  section: RgdSchemaSection | undefined;
  specSchema: OpenAPISchema;
  statusSchema: OpenAPISchema;
  /** Where the status types came from. */
  statusTypesFrom: 'compiler' | 'literal';
  diagnostics: Diagnostic[];
}

/** Generates the CRD from a whole RGD document (kro or krop). */
export function generateCrd(rgd: unknown, options: GenerateCrdOptions = {}): GeneratedCrd {
  const spec = isRecord(rgd) && isRecord(rgd.spec) ? rgd.spec : undefined;
  return generateCrdFromSchemaSection(spec?.schema, options);
}

/** Generates the CRD from the `spec.schema` section. */
export function generateCrdFromSchemaSection(
  section: unknown,
  options: GenerateCrdOptions = {},
): GeneratedCrd {
  const sink = new DiagnosticSink(options.locate);
  const path = options.path ?? 'spec.schema';
  const read = readRgdSchemaSection(section, path, sink);
  const raw = isRecord(section) ? section : {};

  const types = resolveCustomTypes(raw.types, childPath(path, 'types'), sink);
  const converter = new FieldConverter(types, sink);
  const specPath = childPath(path, 'spec');
  let specSchema: OpenAPISchema = { type: 'object' };
  if (isRecord(raw.spec)) specSchema = converter.object(raw.spec, specPath);
  else if (raw.spec !== undefined && raw.spec !== null) {
    sink.error(SchemaCode.InvalidFieldValue, specPath, 'spec.schema.spec must be a map of field names');
  }

  const literal = literalStatusFieldTypes(raw.status, sink, { path: childPath(path, 'status') });
  const statusTypesFrom = options.statusTypes ? 'compiler' : 'literal';
  const statusSchema = withStandardStatusFields(statusSchemaFromFieldTypes(options.statusTypes ?? literal));

  const result: GeneratedCrd = {
    crd: undefined,
    section: read,
    specSchema,
    statusSchema,
    statusTypesFrom,
    diagnostics: sink.diagnostics,
  };
  if (!read || sink.hasErrors) return result;
  result.crd = buildCrd(read, specSchema, statusSchema);
  return result;
}

export function crdNames(kind: string, group: string): { plural: string; singular: string; name: string } {
  const plural = pluralize(kind);
  return { plural, singular: kind.toLowerCase(), name: `${plural}.${group}` };
}

function buildCrd(
  section: RgdSchemaSection,
  specSchema: OpenAPISchema,
  statusSchema: OpenAPISchema,
): CustomResourceDefinition {
  const { plural, singular, name } = crdNames(section.kind, section.group);
  const metadata: CustomResourceDefinition['metadata'] = { name };
  if (section.labels && Object.keys(section.labels).length > 0) metadata.labels = { ...section.labels };
  if (section.annotations && Object.keys(section.annotations).length > 0) {
    metadata.annotations = { ...section.annotations };
  }
  const names: CustomResourceDefinition['spec']['names'] = {
    kind: section.kind,
    listKind: `${section.kind}List`,
    plural,
    singular,
  };
  if (section.shortNames?.length) names.shortNames = [...section.shortNames];
  if (section.categories?.length) names.categories = [...section.categories];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata,
    spec: {
      group: section.group,
      names,
      scope: section.scope,
      versions: [
        {
          name: section.apiVersion,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: specSchema,
                status: statusSchema,
              },
            },
          },
          subresources: { status: {} },
          additionalPrinterColumns: printerColumnsFor(section.additionalPrinterColumns),
        },
      ],
    },
  };
}

/**
 * The type of the RGD's `schema` variable (design/rgd.md §20.1): `apiVersion`, `kind`, `metadata`
 * and `spec` (whose defaults the API server applies), without `status`. Pass the ObjectMeta schema
 * (e.g. inlined from the offline bundle) to type `schema.metadata.*`; otherwise metadata is untyped.
 */
export function instanceVariableSchema(specSchema: OpenAPISchema, objectMeta?: OpenAPISchema): OpenAPISchema {
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: objectMeta ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      spec: specSchema,
    },
  };
}
