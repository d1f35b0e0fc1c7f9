/**
 * The schema layer: OpenAPI v3 models, SimpleSchema → OpenAPI → CRD for RGDs, and the schema
 * sources (CRD files, live cluster, offline bundle) the compiler type-checks against. The kube-backed
 * live fetcher is not re-exported here, so importing this barrel never pulls in the kube layer; import
 * `./sources/liveKube.ts` where a cluster connection is wanted.
 */
export { SchemaCode, type SchemaCodeValue } from './codes.ts';
export {
  ALLOW_BREAKING_CHANGES_ANNOTATION,
  allowsBreakingChanges,
  type ChangeKind,
  type CompareOptions,
  type CompatReport,
  compareCrds,
  compareSchemas,
  type SchemaChange,
} from './crd/compat.ts';
export {
  type CustomResourceDefinition,
  crdNames,
  type GenerateCrdOptions,
  type GeneratedCrd,
  generateCrd,
  generateCrdFromSchemaSection,
  instanceVariableSchema,
} from './crd/generate.ts';
export { pluralize } from './crd/pluralize.ts';
export { DEFAULT_PRINTER_COLUMNS } from './crd/printerColumns.ts';
export { DEFAULT_GROUP, type PrinterColumn, type RgdSchemaSection } from './crd/rgdSchema.ts';
export { literalStatusFieldTypes } from './crd/statusLiteral.ts';
export {
  CONDITIONS_SCHEMA,
  parseStatusPath,
  STATE_SCHEMA,
  type StatusFieldType,
  type StatusFieldTypes,
  type StatusPath,
  statusSchemaFromFieldTypes,
  withStandardStatusFields,
} from './crd/statusSchema.ts';
export {
  COMPONENT_REF_PREFIX,
  collectRefs,
  derefSchema,
  type OpenAPISchema,
  type SchemaComponents,
  unknownFieldsSchema,
  type ValidationRule,
} from './openapi.ts';
export { childPath, DiagnosticSink, type Locate } from './report.ts';
export { type ConvertOptions, type ConvertResult, simpleSchemaToOpenAPI } from './simpleschema/convert.ts';
export { BundleSchemaSource, DEFAULT_BUNDLE_PATH, loadBundle, type SchemaBundle } from './sources/bundle.ts';
export { CrdSchemaSource } from './sources/crdFile.ts';
export { type LiveSchemaFetcher, LiveSchemaSource } from './sources/live.ts';
export { findKindComponent, inlineRefs, stripDescriptions } from './sources/openapiDocs.ts';
export {
  ChainedSchemaResolver,
  createSchemaResolver,
  type KindLookup,
  type SchemaResolverOptions,
  toKindLookup,
} from './sources/resolver.ts';
export {
  isUnknownKind,
  type ResolvedSchema,
  type ResolveResult,
  type SchemaResolver,
  type SchemaSource,
  type SchemaSourceName,
  type UnknownKind,
} from './sources/types.ts';
