/**
 * Completion: inside `${…}` the names an expression can read (node ids, `schema`, iterators), the
 * fields of what precedes a `.` (from the node's kind schema or the RGD's SimpleSchema), and the CEL
 * functions and macros of our environment with their signatures; in the YAML, `apiVersion`/`kind` from
 * the known schemas, a node's template fields from its kind's OpenAPI, node fields, SimpleSchema types
 * and markers.
 */
import { type CompletionItem, CompletionItemKind, MarkupKind } from 'vscode-languageserver';
import { CEL_MACROS, celFunctionCatalog } from '../cel/index.ts';
import type { OpenAPISchema } from '../schema/openapi.ts';
import { MARKER_KEYS } from '../schema/simpleschema/markers.ts';
import { type Analysis, graphAt } from './analysis.ts';
import type { SchemaSet } from './schemas.ts';
import { celReceiver, descend, schemaOfName, typeLabel, visibleNames } from './scope.ts';
import { expressionAt, memberContext } from './textScan.ts';
import { childScalars, keyPathAt, type PathStep, payloadIndex } from './yamlPath.ts';

export interface FeatureContext {
  /** The latest analysis of the text. */
  analysis: Analysis;
  /** The latest analysis whose YAML parsed (names and schemas while the text is half typed). */
  parsed: Analysis;
  schemas: SchemaSet;
  lines: readonly string[];
}

export function complete(
  ctx: FeatureContext,
  offset: number,
  line: number,
  character: number,
): CompletionItem[] {
  const text = ctx.analysis.text;
  const expr = expressionAt(text, offset);
  if (expr) return completeExpression(ctx, offset, expr.prefix);
  return completeYaml(ctx, line, character);
}

function completeExpression(ctx: FeatureContext, offset: number, prefix: string): CompletionItem[] {
  const graph = graphAt(ctx.parsed, offset);
  const names = visibleNames(graph, offset);
  const mc = memberContext(prefix);
  if (!mc.afterDot) {
    const items: CompletionItem[] = names.map((n) => ({
      label: n.name,
      kind: n.what === 'node' ? CompletionItemKind.Module : CompletionItemKind.Variable,
      detail:
        n.what === 'node'
          ? n.node?.resolved
            ? `${n.node.resolved.apiVersion} ${n.node.resolved.kind}`
            : `${n.node?.kind ?? 'node'}`
          : n.what === 'schema'
            ? 'the instance (spec, metadata, status)'
            : n.what === 'iterator'
              ? `forEach iterator of ${n.node?.id}`
              : `one item of ${n.node?.id} (readyWhen)`,
      sortText: `0${n.name}`,
    }));
    for (const [name, sigs] of functionsBy((f) => f.receiverType === null))
      items.push(functionItem(name, sigs, '2'));
    for (const m of CEL_MACROS.filter((x) => !x.receiver))
      items.push({
        label: m.name,
        kind: CompletionItemKind.Keyword,
        detail: m.signature,
        sortText: `1${m.name}`,
      });
    for (const k of ['true', 'false', 'null'])
      items.push({ label: k, kind: CompletionItemKind.Keyword, sortText: `3${k}` });
    return items;
  }
  const schema = mc.chain ? schemaOfChain(ctx, offset, mc.chain) : undefined;
  const items: CompletionItem[] = [];
  for (const [key, field] of Object.entries(schema?.properties ?? {})) {
    items.push({
      label: key,
      kind: CompletionItemKind.Field,
      detail: typeLabel(field),
      ...(field.description
        ? { documentation: { kind: MarkupKind.Markdown, value: field.description } }
        : {}),
      sortText: `0${key}`,
    });
  }
  const receiver = celReceiver(schema);
  const methods = functionsBy((f) =>
    receiver === undefined
      ? f.receiverType !== null
      : f.receiverType === receiver ||
        f.receiverType?.startsWith(`${receiver}<`) === true ||
        f.receiverType === 'dyn',
  );
  // A typed object offers its fields; methods only when the receiver is not a plain object.
  if (!(schema?.properties && receiver === undefined))
    for (const [name, sigs] of methods) items.push(functionItem(name, sigs, '1'));
  if (receiver === 'list' || receiver === 'map' || !schema)
    for (const m of CEL_MACROS.filter((x) => x.receiver))
      items.push({
        label: m.name,
        kind: CompletionItemKind.Keyword,
        detail: m.signature,
        sortText: `1${m.name}`,
      });
  return items;
}

/** The schema a member chain (`deployment`, `spec`, `[]`…) reads, from the names visible at an offset. */
export function schemaOfChain(
  ctx: FeatureContext,
  offset: number,
  chain: readonly string[],
): OpenAPISchema | undefined {
  const graph = graphAt(ctx.parsed, offset);
  const root = visibleNames(graph, offset).find((n) => n.name === chain[0]);
  if (!root || !graph) return undefined;
  let schema = schemaOfName(root, graph, ctx.schemas, ctx.parsed.crdObjects);
  if (schema && root.what === 'node' && (root.node?.forEach.length ?? 0) > 0)
    schema = { type: 'array', items: schema };
  for (const seg of chain.slice(1)) schema = descend(schema, seg);
  return schema;
}

/** The fields a misspelt field at `offset` (inside `${…}`) could have meant: its receiver's declared fields. */
export function fieldsBefore(ctx: FeatureContext, offset: number): string[] {
  const expr = expressionAt(ctx.analysis.text, offset + 1);
  if (!expr) return [];
  const mc = memberContext(ctx.analysis.text.slice(expr.sourceStart, offset));
  if (!mc.afterDot || !mc.chain) return [];
  return Object.keys(schemaOfChain(ctx, offset, mc.chain)?.properties ?? {});
}

function functionsBy(
  pick: (f: ReturnType<typeof celFunctionCatalog>[number]) => boolean,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of celFunctionCatalog()) {
    if (!pick(f) || !/^[A-Za-z_]\w*$/.test(f.name)) continue;
    const list = out.get(f.name) ?? [];
    list.push(f.signature);
    out.set(f.name, list);
  }
  return out;
}

function functionItem(name: string, sigs: string[], sort: string): CompletionItem {
  return {
    label: name,
    kind: CompletionItemKind.Function,
    detail: sigs[0]!,
    documentation: { kind: MarkupKind.Markdown, value: sigs.map((s) => `\`${s}\``).join('  \n') },
    sortText: `${sort}${name}`,
  };
}

const SIMPLE_TYPES = ['string', 'integer', 'boolean', 'float', '[]string', 'map[string]string', 'object'];
const NODE_FIELDS: Record<string, readonly string[]> = {
  resources: ['id', 'template', 'externalRef', 'includeWhen', 'readyWhen', 'forEach'],
  nodes: ['id', 'template', 'ref', 'watch', 'def', 'graph', 'patch', 'includeWhen', 'readyWhen', 'forEach'],
};

function completeYaml(ctx: FeatureContext, line: number, character: number): CompletionItem[] {
  const kp = keyPathAt(ctx.lines, line, character);
  const keys = kp.steps.map((s) => s.key);
  const parent: PathStep = kp.steps.at(-1) ?? documentStep(ctx.lines, line);
  if (kp.valueKey === 'apiVersion') {
    const seen = new Set(ctx.schemas.kinds(ctx.parsed.crdObjects).map((k) => k.apiVersion));
    return [...seen].map((v) => ({ label: v, kind: CompletionItemKind.Module }));
  }
  if (kp.valueKey === 'kind') {
    const apiVersion = childScalars(ctx.lines, parent).get('apiVersion');
    return ctx.schemas
      .kinds(ctx.parsed.crdObjects)
      .filter((k) => !apiVersion || k.apiVersion === apiVersion)
      .map((k) => ({ label: k.kind, kind: CompletionItemKind.Class, detail: k.apiVersion }));
  }
  // SimpleSchema: `field: type | marker=value …` under spec.schema.{spec,status,types}.
  if (kp.valueKey !== undefined && keys[0] === 'spec' && keys[1] === 'schema' && keys.length >= 3) {
    if (kp.typed.includes('|'))
      return MARKER_KEYS.map((m) => ({
        label: `${m}=`,
        kind: CompletionItemKind.Property,
        detail: 'SimpleSchema marker',
      }));
    return SIMPLE_TYPES.map((t) => ({
      label: t,
      kind: CompletionItemKind.TypeParameter,
      detail: 'SimpleSchema type',
    }));
  }
  if (kp.valueKey !== undefined) return [];
  // Fields of a node item.
  if (keys.at(-1) === '[]' && (keys.at(-2) === 'resources' || keys.at(-2) === 'nodes')) {
    const root = childScalars(ctx.lines, documentStep(ctx.lines, line)).get('apiVersion') ?? '';
    // krop blueprints place each resource on a plane.
    const fields = [...NODE_FIELDS[keys.at(-2)!]!, ...(root.startsWith('krop.') ? ['target'] : [])];
    return fields.map((f) => ({ label: f, kind: CompletionItemKind.Property, insertText: `${f}: ` }));
  }
  // Template fields from the kind's schema.
  const at = payloadIndex(kp.steps);
  if (at < 0) return [];
  const head = childScalars(ctx.lines, kp.steps[at]!);
  const apiVersion = head.get('apiVersion');
  const kind = head.get('kind');
  if (!apiVersion || !kind || apiVersion.includes('${') || kind.includes('${')) {
    return ['apiVersion', 'kind', 'metadata'].map((f) => ({
      label: f,
      kind: CompletionItemKind.Property,
      insertText: `${f}: `,
    }));
  }
  let schema = ctx.schemas.schemaOf(apiVersion, kind, ctx.parsed.crdObjects);
  for (const s of kp.steps.slice(at + 1)) schema = descend(schema, s.key);
  const present = new Set(childScalars(ctx.lines, parent).keys());
  return Object.entries(schema?.properties ?? {})
    .filter(([k]) => !present.has(k))
    .map(([k, field]) => ({
      label: k,
      kind: CompletionItemKind.Property,
      detail: typeLabel(field),
      insertText: `${k}: `,
      ...(field.description
        ? { documentation: { kind: MarkupKind.Markdown, value: field.description } }
        : {}),
      sortText: `${schema?.required?.includes(k) ? '0' : '1'}${k}`,
    }));
}

/** A pseudo step for the root map of the YAML document holding a line (after its `---`). */
function documentStep(lines: readonly string[], line: number): PathStep {
  let l = line - 1;
  while (l >= 0 && !/^---/.test(lines[l]!)) l--;
  return { key: '', line: l, indent: -1 };
}
