/**
 * Diagnostics shared by every layer. A diagnostic is a value, not an exception:
 * compilers collect them; commands print them; controllers put them in conditions.
 */
export type Severity = 'error' | 'warning' | 'info';

/** Where in the user's input a diagnostic points. Lines and columns are 1-based. */
export interface SourceLocation {
  file?: string;
  line?: number;
  column?: number;
  /** Absolute character offsets into the file, when known. */
  offset?: number;
  length?: number;
}

export interface Diagnostic {
  severity: Severity;
  /** Stable code, e.g. KG1001. Never reused for another meaning. */
  code: string;
  message: string;
  /** Node id (dotted for nested graphs), when the diagnostic concerns one node. */
  node?: string;
  /** Field path inside the document, e.g. spec.nodes[2].template.metadata.name */
  path?: string;
  location?: SourceLocation;
  /** Optional hint shown under the message. */
  hint?: string;
}

/** An error that carries a code, thrown only across boundaries that cannot return a value. */
export class KgraphError extends Error {
  readonly code: string;
  readonly diagnostics: readonly Diagnostic[];
  constructor(code: string, message: string, diagnostics: readonly Diagnostic[] = []) {
    super(message);
    this.name = 'KgraphError';
    this.code = code;
    this.diagnostics = diagnostics;
  }
}
// `instanceof KgraphError` holds for errors of another copy of this module too (a CommonJS copy of
// the SDK loaded beside the ESM one, src/sdk/registry.ts): the prototype carries a Symbol.for brand.
const KGRAPH_ERROR = Symbol.for('kgraph.KgraphError');
Object.defineProperty(KgraphError.prototype, KGRAPH_ERROR, { value: true });
Object.defineProperty(KgraphError, Symbol.hasInstance, {
  value(this: unknown, v: unknown): boolean {
    // A subclass without a brand of its own keeps the ordinary check.
    if (this !== KgraphError) return Function.prototype[Symbol.hasInstance].call(this, v);
    if (typeof v !== 'object' || v === null) return false;
    for (let p: object | null = Object.getPrototypeOf(v); p !== null; p = Object.getPrototypeOf(p))
      if (Object.hasOwn(p, KGRAPH_ERROR)) return true;
    return false;
  },
});
