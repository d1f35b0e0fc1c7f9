/**
 * Hover: inside `${…}` the type the checker inferred for the expression and what the name or field
 * under the cursor is (a node's kind and dependencies, a field's type and description, a function's
 * overloads); on a template
 * key, the field's schema; on a node's id, the node.
 */
import { CEL_MACROS, celFunctionCatalog } from '../cel/index.ts';
import type { CompiledNode } from '../graph/model.ts';
import type { OpenAPISchema } from '../schema/openapi.ts';
import { graphAt } from './analysis.ts';
import type { FeatureContext } from './completion.ts';
import { descend, nodeAt, schemaOfName, typeLabel, visibleNames } from './scope.ts';
import { exprAt } from './slots.ts';
import { expressionAt, memberContext, wordAt } from './textScan.ts';
import { childScalars, keyPathAt, payloadIndex } from './yamlPath.ts';

export interface HoverResult {
  markdown: string;
  start: number;
  end: number;
}

export function hoverAt(ctx: FeatureContext, offset: number, line: number): HoverResult | undefined {
  const text = ctx.analysis.text;
  const word = wordAt(text, offset);
  const graph = graphAt(ctx.parsed, offset);
  const expr = expressionAt(text, word?.end ?? offset);
  if (expr && word) {
    const lines: string[] = [];
    const mc = memberContext(text.slice(expr.sourceStart, word.end));
    const chain = mc.afterDot ? (mc.chain ? [...mc.chain, mc.partial] : undefined) : [mc.partial];
    const names = visibleNames(graph, offset);
    const root = chain ? names.find((n) => n.name === chain[0]) : undefined;
    if (root && chain && graph) {
      if (chain.length === 1) {
        if (root.what === 'node' && root.node) lines.push(describeNode(root.node));
        else if (root.what === 'schema')
          lines.push('`schema`: the instance of the RGD (spec, metadata, status)');
        else if (root.what === 'iterator')
          lines.push(`\`${root.name}\`: forEach iterator of node \`${root.node?.id}\``);
        else lines.push(`\`each\`: one item of collection \`${root.node?.id}\``);
      } else {
        let schema: OpenAPISchema | undefined = schemaOfName(root, graph, ctx.schemas, ctx.parsed.crdObjects);
        if (schema && root.what === 'node' && (root.node?.forEach.length ?? 0) > 0)
          schema = { type: 'array', items: schema };
        for (const seg of chain.slice(1)) schema = descend(schema, seg);
        if (schema) lines.push(fieldDoc(chain.join('.').replaceAll('.[]', '[]'), schema));
      }
    }
    if (lines.length === 0 && /^\s*\(/.test(text.slice(word.end))) {
      const sigs = celFunctionCatalog().filter((f) => f.name === word.word);
      const macro = CEL_MACROS.find((m) => m.name === word.word);
      if (macro) lines.push(`\`${macro.signature}\` (macro)`);
      if (sigs.length > 0) lines.push(sigs.map((f) => `\`${f.signature}\``).join('  \n'));
    }
    const located = exprAt(graph, offset);
    if (located?.expr.resultType) lines.push(`\`\${${located.expr.cel}}\`: \`${located.expr.resultType}\``);
    if (lines.length === 0) return undefined;
    return { markdown: lines.join('\n\n'), start: word.start, end: word.end };
  }
  if (!word) return undefined;
  const src = ctx.lines[line] ?? '';
  const col = word.start - (offset - posInLine(text, offset));
  // A node's id: `id: name`.
  if (/^\s*(- )?id:\s*$/.test(src.slice(0, col)) && graph) {
    const n = nodeAt(graph, offset);
    if (n && n.id === word.word) return { markdown: describeNode(n), start: word.start, end: word.end };
  }
  // A key of a template: its schema.
  if (src.slice(col + word.word.length).startsWith(':')) {
    const kp = keyPathAt(ctx.lines, line, col);
    const at = payloadIndex(kp.steps);
    if (at < 0) return undefined;
    const head = childScalars(ctx.lines, kp.steps[at]!);
    const apiVersion = head.get('apiVersion');
    const kind = head.get('kind');
    if (!apiVersion || !kind) return undefined;
    let schema = ctx.schemas.schemaOf(apiVersion, kind, ctx.parsed.crdObjects);
    for (const s of kp.steps.slice(at + 1)) schema = descend(schema, s.key);
    schema = descend(schema, word.word);
    if (!schema) return undefined;
    return { markdown: fieldDoc(word.word, schema), start: word.start, end: word.end };
  }
  return undefined;
}

function posInLine(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

function fieldDoc(name: string, schema: OpenAPISchema): string {
  const head = `\`${name}\`: \`${typeLabel(schema)}\``;
  return schema.description ? `${head}\n\n${schema.description}` : head;
}

/** A node in a line or two: its kind, type, collection dimensions and dependencies. */
export function describeNode(n: CompiledNode): string {
  const type = n.resolved ? `${n.resolved.apiVersion} ${n.resolved.kind}` : n.dynamic ? 'dynamic kind' : '';
  const parts = [`**${n.kind}** node \`${n.id}\`${type ? `: ${type}` : ''}`];
  if (n.forEach.length > 0) parts.push(`collection over ${n.forEach.map((d) => `\`${d.name}\``).join(', ')}`);
  parts.push(
    n.dependencies.length > 0
      ? `depends on ${n.dependencies.map((d) => `\`${d}\``).join(', ')}`
      : 'depends on no other node',
  );
  if (n.includeWhen.length > 0) parts.push('conditional (includeWhen)');
  return parts.join('  \n');
}
