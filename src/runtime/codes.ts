/**
 * Diagnostic codes of the evaluation engine (KG5xxx). A code is never reused for another meaning.
 */
export const RuntimeCode = {
  /** An expression read data that does not exist yet (soft: retry when it appears). */
  DataPending: 'KG5001',
  /** A dependency is pending, so this node was not evaluated this pass (soft). */
  DependencyPending: 'KG5002',
  /** Ready-gating (RGD): a dependency is not ready yet (soft). */
  DependencyNotReady: 'KG5003',
  /** A ref target (by name) does not exist yet (soft). */
  RefTargetMissing: 'KG5004',
  /** A dynamic type is not served by the cluster yet (soft). */
  TypeNotServed: 'KG5005',
  /** A patch target does not exist yet (soft). */
  PatchTargetMissing: 'KG5006',
  /** A genuine CEL evaluation error. */
  Evaluation: 'KG5101',
  /** includeWhen / readyWhen did not return a bool. */
  NotBool: 'KG5102',
  /** A forEach expression did not return a list. */
  NotList: 'KG5103',
  /** A collection exceeded the item limit. */
  CollectionTooLarge: 'KG5104',
  /** Two items of a collection (or two nodes) render the same object identity. */
  DuplicateIdentity: 'KG5105',
  /** A template part did not evaluate to a string. */
  TemplatePartNotString: 'KG5106',
  /** A rendered object lacks apiVersion, kind or metadata.name. */
  BadIdentity: 'KG5107',
  /** A selector computed from data is not a valid LabelSelector. */
  InvalidSelector: 'KG5108',
  /** A custom-condition entry did not yield runtime.newCondition(…) values (design/rgd.md §20.3). */
  ConditionOutput: 'KG5109',
  /** The compiled graph holds something the engine does not support. */
  Unsupported: 'KG5199',
} as const;

export type RuntimeCodeValue = (typeof RuntimeCode)[keyof typeof RuntimeCode];
