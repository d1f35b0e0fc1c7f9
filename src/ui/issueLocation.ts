/**
 * Where a pending or failing expression is written. The engine names the node, the field and the
 * expression (RuntimeIssue); the compiler keeps the source position of every expression slot
 * (`slotLocations`). This joins the two and formats the result as the CLI formats diagnostics.
 */
import type { Diagnostic, SourceLocation } from '../diag/diagnostic.ts';
import { formatPath } from '../expr/index.ts';
import { resolveSourceAt, slotLocations } from '../graph/compile.ts';
import { formatDiagnostic } from '../graph/format.ts';
import type { CompiledFrame, CompiledGraph, CompiledNode, ExprSlot, ValueNode } from '../graph/model.ts';
import type { SourceFile } from '../graph/yamlTree.ts';
import type { RuntimeIssue } from '../runtime/types.ts';
import type { UiIssue, UiLocation } from './model.ts';

/** The node at a dotted path, at any depth. */
export function findNode(graph: CompiledGraph, path: string): CompiledNode | undefined {
  const visit = (f: CompiledFrame): CompiledNode | undefined => {
    for (const n of f.nodes) {
      if (n.path === path) return n;
      if (n.children && path.startsWith(`${n.path}.`)) {
        const hit = visit(n.children);
        if (hit) return hit;
      }
    }
    return undefined;
  };
  return visit(graph.root);
}

/** Every expression slot of a node: payload, forEach dimensions, includeWhen, readyWhen. */
export function nodeSlots(n: CompiledNode): ExprSlot[] {
  const out: ExprSlot[] = [];
  const walk = (v: ValueNode | undefined): void => {
    if (!v) return;
    if (v.t === 'expr') out.push(v.slot);
    else if (v.t === 'object') for (const [, x] of v.entries) walk(x);
    else if (v.t === 'list') for (const x of v.items) walk(x);
  };
  walk(n.payload);
  for (const d of n.forEach) out.push(d.slot);
  out.push(...n.includeWhen, ...n.readyWhen);
  return out;
}

function exprText(cel: string): string {
  return `\${${cel}}`;
}

/** The source position of the issue's expression (or of its field), when the compiler recorded it. */
export function issueSourceLocation(
  node: CompiledNode,
  issue: Pick<RuntimeIssue, 'expression' | 'field'>,
  source: SourceFile,
): SourceLocation | undefined {
  const slots = nodeSlots(node);
  const byExpr = (s: ExprSlot): boolean =>
    issue.expression !== undefined &&
    s.parts.some((p) => typeof p !== 'string' && exprText(p.cel) === issue.expression);
  const byField = (s: ExprSlot): boolean => issue.field !== undefined && formatPath(s.path) === issue.field;
  const slot =
    slots.find((s) => byField(s) && byExpr(s)) ?? slots.find(byField) ?? slots.find(byExpr) ?? undefined;
  if (!slot) return undefined;
  const loc = slotLocations.get(slot);
  if (!loc) return undefined;
  if ('offset' in loc.at) {
    const expr = slot.parts.find(
      (p): p is Exclude<typeof p, string> =>
        typeof p !== 'string' && (issue.expression === undefined || exprText(p.cel) === issue.expression),
    );
    // `at` covers the whole string value; point at the `${…}` inside it when it maps 1:1.
    const r = resolveSourceAt(
      expr ? { ...loc.at, offset: loc.at.offset + expr.offset, length: exprText(expr.cel).length } : loc.at,
    );
    return source.location(r.offset, r.length);
  }
  return source.location(loc.at.pos.offset, loc.at.pos.length);
}

export function uiLocation(l: SourceLocation | undefined): UiLocation | undefined {
  if (!l || l.line === undefined) return undefined;
  return { file: l.file ?? '', line: l.line, column: l.column ?? 1 };
}

/** The page's view of an engine issue: the expression, its field and source location, and the CLI text. */
export function describeIssue(
  graph: CompiledGraph,
  issue: RuntimeIssue,
  severity: 'error' | 'info',
  source: SourceFile | undefined,
): UiIssue {
  const out: UiIssue = { code: issue.code, message: issue.message };
  if (issue.expression !== undefined) out.expression = issue.expression;
  if (issue.field !== undefined) out.field = issue.field;
  if (issue.reference !== undefined) out.reference = issue.reference;
  const node = findNode(graph, issue.node);
  const location = node && source ? (issueSourceLocation(node, issue, source) ?? node.location) : undefined;
  const ui = uiLocation(location);
  if (ui) out.location = ui;
  const d: Diagnostic = {
    severity,
    code: issue.code,
    message: issue.expression ? `${issue.message} in ${issue.expression}` : issue.message,
    node: issue.node,
  };
  if (issue.field !== undefined) d.path = issue.field;
  if (location) d.location = location;
  out.text = formatDiagnostic(d, source);
  return out;
}
