/**
 * Finds every `${…}` in a JSON/YAML value tree (a template payload, a `def`, a status block) with
 * the field path it sits at, so the compiler can type-check each expression against the schema
 * of its field and the engine can write results back. Honours the never-evaluated regions of
 * design/graph.md §6.3: map keys are never scanned, and callers mark data subtrees (an RGD
 * instance's own spec values) with `skip`.
 */
import type { Diagnostic } from '../diag/diagnostic.ts';
import { ExprCodes } from './codes.ts';
import { type StandaloneValue, scanValue, type TemplateValue } from './scan.ts';

export type PathSegment = string | number;

/** A string field whose value contains at least one expression. */
export interface ExpressionField {
  /** Rendered path, e.g. `spec.template.spec.containers[0].image`. */
  readonly path: string;
  readonly segments: readonly PathSegment[];
  readonly scanned: StandaloneValue | TemplateValue;
}

export interface WalkOptions {
  /** Path of `tree` itself inside its document (prefixed to every reported path). */
  readonly basePath?: readonly PathSegment[];
  /** Return true for subtrees that are data and must never be evaluated (design/graph.md §6.3). */
  readonly skip?: (segments: readonly PathSegment[]) => boolean;
}

export interface WalkResult {
  readonly fields: ExpressionField[];
  /** Scanner errors (with `path` set) and warnings for map keys that contain `${`. */
  readonly diagnostics: Diagnostic[];
}

export function findExpressions(tree: unknown, options: WalkOptions = {}): WalkResult {
  const result: WalkResult = { fields: [], diagnostics: [] };
  visit(tree, [...(options.basePath ?? [])], options, result);
  return result;
}

function visit(node: unknown, segments: PathSegment[], options: WalkOptions, out: WalkResult): void {
  if (options.skip?.(segments)) return;
  if (typeof node === 'string') {
    if (!node.includes('${')) return;
    const scanned = scanValue(node);
    const path = formatPath(segments);
    if (!scanned.ok) {
      out.diagnostics.push({ ...scanned.diagnostic, path });
    } else if (scanned.value.kind !== 'literal') {
      out.fields.push({ path, segments: [...segments], scanned: scanned.value });
    }
    return;
  }
  if (Array.isArray(node)) {
    node.forEach((item, index) => {
      segments.push(index);
      visit(item, segments, options, out);
      segments.pop();
    });
    return;
  }
  if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      segments.push(key);
      if (key.includes('${')) {
        out.diagnostics.push({
          severity: 'warning',
          code: ExprCodes.keyNotEvaluated,
          message: `map key ${JSON.stringify(key)} contains \`\${\`: map keys are never evaluated and stay literal text`,
          path: formatPath(segments),
        });
      }
      visit(value, segments, options, out);
      segments.pop();
    }
  }
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** `['spec', 'containers', 0, 'image']` → `spec.containers[0].image`; odd keys are bracket-quoted. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (PLAIN_KEY.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}
