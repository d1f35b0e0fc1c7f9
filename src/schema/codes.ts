/**
 * Diagnostic codes of the schema layer (KG4xxx: SimpleSchema and CRD generation). One table so that
 * codes stay stable and are never reused for another meaning.
 */
export const SchemaCode = {
  /** A SimpleSchema field is neither a type string nor a nested map. */
  InvalidFieldValue: 'KG4001',
  /** A type name that is neither built in nor declared in `spec.schema.types`. */
  UnknownType: 'KG4002',
  /** `map[K]V` with K other than `string`. */
  MapKeyNotString: 'KG4003',
  /** A malformed type expression: empty type, empty map value or slice element type. */
  MalformedType: 'KG4004',
  /** More than 16 nested `[]` / `map[string]` wrappers. */
  TypeNestingTooDeep: 'KG4005',
  /** Custom types that refer to each other in a cycle. */
  CyclicType: 'KG4006',
  /** A marker key that SimpleSchema does not define. */
  UnknownMarker: 'KG4007',
  /** Marker text that does not tokenize: key without value, unclosed quote or bracket. */
  MarkerSyntax: 'KG4008',
  /** A marker value of the wrong form (e.g. `required=maybe`, `minimum=abc`). */
  InvalidMarkerValue: 'KG4009',
  /** A marker used on a type it does not apply to (e.g. `pattern` on an integer). */
  MarkerNotApplicable: 'KG4010',
  /** A `default` that does not parse or does not match the field's type. */
  InvalidDefault: 'KG4011',
  /** An `enum` with an empty or ill-typed member. */
  InvalidEnum: 'KG4012',
  /** A `pattern` that is empty or does not compile (RE2). */
  InvalidPattern: 'KG4013',
  /** Contradictory list types (`listType`, `uniqueItems`). */
  ListTypeConflict: 'KG4014',
  /** A `listMapKey` that is duplicated or used without `listType=map`. */
  InvalidListMapKey: 'KG4015',
  /** A custom type whose name or body is invalid. */
  InvalidCustomType: 'KG4016',
  /** A status leaf with no `${…}` expression. */
  StatusFieldWithoutExpression: 'KG4020',
  /** `status.state` or a non-list `status.conditions`: reserved, controller-owned. */
  ReservedStatusField: 'KG4021',
  /** A status value of a kind that can never be an expression (number, boolean, null). */
  InvalidStatusField: 'KG4022',
  /** `spec.schema` missing or not a map. */
  MissingSchema: 'KG4030',
  /** `spec.schema.kind` missing or not UpperCamelCase. */
  InvalidKind: 'KG4031',
  /** `spec.schema.apiVersion` missing or not `v<N>[alpha<N>|beta<N>]`. */
  InvalidApiVersion: 'KG4032',
  /** `spec.schema.group` not a DNS subdomain. */
  InvalidGroup: 'KG4033',
  /** `spec.schema.scope` other than Namespaced or Cluster. */
  InvalidScope: 'KG4034',
  /** A malformed `additionalPrinterColumns` entry. */
  InvalidPrinterColumn: 'KG4035',
  /** Invalid `shortNames` or `categories`. */
  InvalidNames: 'KG4036',
  /** Invalid `spec.schema.metadata` (labels / annotations copied onto the CRD). */
  InvalidCrdMetadata: 'KG4037',
  /** A CRD file that cannot be used as a schema source. */
  InvalidCrdFile: 'KG4040',
} as const;

export type SchemaCodeValue = (typeof SchemaCode)[keyof typeof SchemaCode];
