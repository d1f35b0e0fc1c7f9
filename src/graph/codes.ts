/**
 * Diagnostic codes of the compiler: KG2xxx graph structure, KG3xxx types and schemas.
 * One table so that codes stay stable and are never reused for another meaning.
 */
export const GraphCode = {
  // ── input ────────────────────────────────────────────────────────────────
  /** The file is not valid YAML. */
  YamlSyntax: 'KG2001',
  /** kgraph leniency: an unquoted `${…}` in a flow collection was read as a string (warning). */
  FlowExpressionQuoted: 'KG2002',
  /** A document that is not a Graph or ResourceGraphDefinition of a supported apiVersion. */
  UnsupportedDocument: 'KG2003',
  /** `metadata.name` missing on the Graph / RGD object itself. */
  MissingObjectName: 'KG2004',
  /** A field of the object has the wrong shape (e.g. `spec.nodes` is not a list). */
  InvalidShape: 'KG2005',
  /** `spec.nodes` / `spec.resources` missing or empty ("at least one node"). */
  NoNodes: 'KG2006',
  /** A file or directory given on the command line could not be read. */
  UnreadableInput: 'KG2007',
  /** Graph `spec.serviceAccountName` (or a value of an RGD's `spec.defaultServiceAccounts`) not a DNS-1123 subdomain (≤ 253 characters). */
  InvalidServiceAccountName: 'KG2008',
  /** The compiler failed on a document (too deeply nested, or a bug); other documents still get their result. */
  InternalFailure: 'KG2009',
  /** A map key written twice (warning; the last value wins, as kubectl and kro read it). */
  DuplicateYamlKey: 'KG2016',
  /** An unknown field directly under `spec` (Graph: serviceAccountName, nodes; RGD: schema, resources, defaultServiceAccounts). */
  UnknownSpecField: 'KG2017',
  /** `metadata.namespace` of the Graph that is not a string (a number, a map, …). */
  InvalidNamespace: 'KG2018',
  /** A plain map key that YAML 1.1 (kubectl) reads as a boolean: `on`, `yes`, `n`, … (warning). */
  YamlBooleanKey: 'KG2019',

  // ── node ids ─────────────────────────────────────────────────────────────
  /** A node without `id`. */
  MissingId: 'KG2010',
  /** Graph id not matching `^[A-Za-z][A-Za-z0-9]*$`. */
  InvalidId: 'KG2011',
  /** RGD id not lowerCamelCase ("naming convention violation"). */
  IdNamingConvention: 'KG2012',
  /** A reserved word used as id ("id is reserved"). */
  ReservedId: 'KG2013',
  /** Two nodes with the same id in one frame. */
  DuplicateId: 'KG2014',
  /** An id the CEL engine cannot declare as a variable (`prototype`): it could not be referenced. */
  IdShadowsBuiltin: 'KG2015',

  // ── node kinds and modifiers ─────────────────────────────────────────────
  /** Zero or several of template / ref / def / graph / patch (RGD: template / externalRef). */
  NodeKindCount: 'KG2020',
  /** A field a node does not define (typo such as `templte`, `target` outside krop). */
  UnknownNodeField: 'KG2021',
  /** A modifier the node kind does not accept (forEach on ref, readyWhen on patch, any on graph). */
  ModifierNotAllowed: 'KG2022',
  /** RGD: externalRef with forEach ("cannot use externalRef with forEach"). */
  ExternalRefForEach: 'KG2023',
  /** krop: `target` other than consumer, provider, host (reason InvalidTarget). */
  InvalidTarget: 'KG2024',
  /** The payload of a node is not a map. */
  PayloadNotObject: 'KG2025',

  // ── templates and identities ─────────────────────────────────────────────
  /** `apiVersion` missing or not a string. */
  MissingApiVersion: 'KG2030',
  /** `kind` missing or not a string. */
  MissingKind: 'KG2031',
  /** `metadata.name` missing (templates, patches, refs without selector). */
  MissingName: 'KG2032',
  /** Cluster-scoped kind with `metadata.namespace` ("cluster-scoped and must not set metadata.namespace"). */
  ClusterScopedNamespace: 'KG2033',
  /** CEL outside `metadata` in a CustomResourceDefinition template. */
  CrdTemplateExpression: 'KG2034',
  /** krop: provider/host namespaced node without explicit `metadata.namespace`. */
  PlaneNamespaceRequired: 'KG2035',
  /** Cluster-scoped RGD instances: namespaced children must set `metadata.namespace` (design/graph.md §11). */
  ClusterInstanceNamespaceRequired: 'KG2036',

  // ── patch ────────────────────────────────────────────────────────────────
  /** A patch mixing the status endpoint with the main resource. */
  PatchMixedEndpoints: 'KG2040',
  /** A patch whose payload is identity only. */
  PatchIdentityOnly: 'KG2041',
  /** A patch setting ownerReferences / finalizers / deletionTimestamp / uid. */
  PatchForbiddenMetadata: 'KG2042',

  // ── ref / externalRef ────────────────────────────────────────────────────
  /** Both `metadata.name` and `metadata.selector`. */
  RefNameAndSelector: 'KG2050',
  /** Neither `metadata.name` nor `metadata.selector`. */
  RefNoNameNorSelector: 'KG2051',
  /** A selector that is neither a map nor one standalone expression. */
  RefInvalidSelector: 'KG2052',

  // ── watch (kro KREP-024) ─────────────────────────────────────────────────
  /** A watch without a selector (`selector: {}` watches every object of the kind). */
  WatchNoSelector: 'KG2053',
  /** A watch with `metadata.name`: a watch reads a set; a single object is a `ref`. */
  WatchWithName: 'KG2054',
  /** A field a watch does not take, or one given twice (`selector` and `metadata.selector`). */
  WatchInvalidField: 'KG2055',

  // ── forEach ──────────────────────────────────────────────────────────────
  /** An entry that is not a single-entry map with a string value. */
  ForEachShape: 'KG2060',
  /** A forEach value that is not one standalone expression. */
  ForEachNotStandalone: 'KG2061',
  /** Iterator name not matching the id pattern (Graph) / lowerCamelCase (RGD). */
  IteratorInvalidName: 'KG2062',
  /** Iterator name reserved. */
  IteratorReserved: 'KG2063',
  /** Iterator name equal to the node's id (Graph) or to any resource id (RGD). */
  IteratorClashesWithId: 'KG2064',
  /** Two iterators of one node with the same name. */
  IteratorDuplicate: 'KG2065',
  /** An iterator expression referencing another iterator ("cannot reference other iterators"). */
  IteratorReferencesIterator: 'KG2066',
  /** An iterator not used in metadata.name / namespace (identity rule). */
  IteratorNotInIdentity: 'KG2067',
  /** More than 10 forEach dimensions (RGD). */
  TooManyDimensions: 'KG2068',

  // ── includeWhen / readyWhen ──────────────────────────────────────────────
  /** includeWhen / readyWhen is not a list of strings. */
  ConditionShape: 'KG2070',
  /** includeWhen / readyWhen entry not one standalone expression. */
  ConditionNotStandalone: 'KG2071',
  /** readyWhen referencing another node ("may only reference the node itself"). */
  ReadyWhenForeignReference: 'KG2072',
  /** readyWhen of a collection referencing the node id instead of `each`. */
  ReadyWhenCollectionById: 'KG2073',
  /** `omit()` in includeWhen, readyWhen, forEach or identity fields. */
  OmitNotAllowed: 'KG2074',

  // ── references and the DAG ───────────────────────────────────────────────
  /** A payload referencing its own node ("self references are not allowed"). */
  SelfReference: 'KG2080',
  /** A reference to a patch node ("does not publish a value"). */
  PatchReferenced: 'KG2081',
  /** Unknown identifiers ("references unknown identifiers: [x]"). */
  UnknownIdentifier: 'KG2082',
  /** A dependency cycle ("graph contains a cycle: a → b → a"). */
  Cycle: 'KG2083',
  /** One expression referencing nodes of two frames ("mixes node references from different graph scopes"). */
  MixedScopes: 'KG2084',
  /** `${g.x}` where graph node `g` has no child `x`. */
  UnknownChild: 'KG2085',
  /** An expression that is not a valid CEL expression (syntax error). */
  CelSyntax: 'KG2086',
  /** A `${…}` scanning error (unterminated, nested, empty). The message carries the scanner's code. */
  ExpressionScan: 'KG2087',
  /** `runtime.*` used outside `spec.schema.status.conditions`. */
  RuntimeLibraryMisuse: 'KG2088',
  /** Two custom conditions with the same literal type (design/rgd.md §20.3). */
  DuplicateConditionType: 'KG2092',
  /** `runtime.condition(schema, T)` for a custom condition type of the same RGD (design/rgd.md §20.3). */
  OwnConditionLookup: 'KG2093',
  /** A custom-condition expression that does not yield runtime.newCondition(…) or a list of them (design/rgd.md §20.3). */
  ConditionOutputType: 'KG2094',

  // ── nesting ──────────────────────────────────────────────────────────────
  /** A graph node whose payload is not `{nodes: [...]}`. */
  SubgraphShape: 'KG2090',
  /** An empty subgraph. */
  SubgraphEmpty: 'KG2091',

  // ── RGD schema and status ────────────────────────────────────────────────
  /** `spec.schema` missing or missing kind / apiVersion. */
  RgdSchemaMissing: 'KG2095',
  /** `spec.schema.kind` not UpperCamelCase ("is not a valid KRO kind name"). */
  RgdInvalidKind: 'KG2096',
  /** `spec.schema.apiVersion` not `v<N>[alpha<N>|beta<N>]`. */
  RgdInvalidApiVersion: 'KG2097',
  /** A status leaf without expression ("status fields without expressions are not supported"). */
  StatusWithoutExpression: 'KG2098',
  /** A status field that references nothing (`${true}`). */
  StatusReferencesNothing: 'KG2099',

  // ── types (KG3xxx) ───────────────────────────────────────────────────────
  /** A literal apiVersion/kind that no schema source knows ("schema not found"). */
  UnknownKind: 'KG3001',
  /** includeWhen / readyWhen not returning bool ("must return bool"). */
  NotBool: 'KG3002',
  /** forEach not returning a list ("must return a list"). */
  NotList: 'KG3003',
  /** Selecting a field a typed object does not declare ("undefined field 'x'"). */
  UndefinedField: 'KG3004',
  /** An expression whose type does not fit the field ("type mismatch"). */
  TypeMismatch: 'KG3005',
  /** A string-template part that is not a string. */
  TemplatePartNotString: 'KG3006',
  /** A CEL type-check error not covered above (unknown function, no matching overload, …). */
  CelTypeError: 'KG3007',
  /** A literal field that the kind's schema does not declare (design/graph.md §17.3). */
  UnknownLiteralField: 'KG3008',
  /** A literal value of the wrong type for its field (design/graph.md §17.3). */
  LiteralTypeMismatch: 'KG3009',
  /** A schema source that could not be used (warning: types fall back to dyn). */
  SchemaSourceUnavailable: 'KG3010',
  /** CEL kgraph accepts but kro rejects, reported while kro compatibility is on (the default). */
  KroIncompatible: 'KG3011',
} as const;

export type GraphCodeValue = (typeof GraphCode)[keyof typeof GraphCode];
