/**
 * Go to definition and find references between `${node.…}` and the node's `id:`: the names are read from
 * the text's expressions (string literals and fields skipped), so they work on any Graph or RGD,
 * nested graph frames included.
 */
import type { CompiledNode } from '../graph/model.ts';
import { documentAt, graphAt } from './analysis.ts';
import type { FeatureContext } from './completion.ts';
import { allNodes, nodeAt } from './scope.ts';
import { expressionAt, expressionsIn, identifiersIn, wordAt } from './textScan.ts';

export interface TextRange {
  start: number;
  end: number;
}

/** The range of a node's id value (`id: web` → `web`). */
export function idRange(text: string, n: CompiledNode): TextRange | undefined {
  const from = n.location.offset;
  if (from === undefined) return undefined;
  const lineEnd = text.indexOf('\n', from);
  const at = text.slice(from, lineEnd < 0 ? undefined : lineEnd).search(new RegExp(`\\b${n.id}\\b`));
  if (at < 0) return { start: from, end: from + (n.location.length ?? 0) };
  return { start: from + at, end: from + at + n.id.length };
}

/** The node named at an offset: an id inside `${…}` (not a field), or the value of `id:`. */
export function nodeNamedAt(ctx: FeatureContext, offset: number): CompiledNode | undefined {
  const text = ctx.analysis.text;
  const word = wordAt(text, offset);
  if (!word) return undefined;
  const graph = graphAt(ctx.parsed, offset);
  const expr = expressionAt(text, word.end);
  if (expr) {
    const ids = identifiersIn(text.slice(expr.sourceStart, word.end));
    const last = ids.at(-1);
    if (!last || last.member || last.name !== word.word) return undefined;
    return allNodes(graph).find((n) => n.id === word.word);
  }
  const n = nodeAt(graph, offset);
  const r = n ? idRange(text, n) : undefined;
  return n && r && r.start <= offset && offset <= r.end ? n : undefined;
}

/** Where the node is read: every `${…}` of its document that names it as a variable. */
export function referencesTo(ctx: FeatureContext, n: CompiledNode): TextRange[] {
  const text = ctx.analysis.text;
  const doc = documentAt(ctx.parsed, n.location.offset ?? 0);
  const start = doc?.doc.root?.pos.offset ?? 0;
  const end = doc?.doc.root ? doc.doc.root.pos.offset + doc.doc.root.pos.length : text.length;
  const out: TextRange[] = [];
  for (const e of expressionsIn(text)) {
    if (e.start < start || e.start > end) continue;
    for (const id of identifiersIn(e.source))
      if (!id.member && id.name === n.id)
        out.push({ start: e.sourceStart + id.offset, end: e.sourceStart + id.offset + id.name.length });
  }
  return out;
}
