// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax
/**
 * Expression pass (kro: the variables step): scans every string of a node for ${…}, parses the CEL,
 * builds the payload value tree with its slots and applies the rules that depend on where an
 * expression sits (standalone-only modifiers, omit(), runtime.*, the forEach identity rule, CRD
 * templates). References are resolved by ./references.ts.
 */
import { listReferences, parse as parseCel } from '../../cel/index.ts';
import { ExprCodes, formatPath, isStandalone, type PathSegment, scanValue } from '../../expr/index.ts';
import { extractReferences } from '../celRefs.ts';
import { GraphCode } from '../codes.ts';
import { splitApiVersion } from '../kinds.ts';
import type {
  CompiledExpr,
  CompiledNode,
  ExprSlot,
  ForEachDimension,
  JsonValue,
  ValueNode,
} from '../model.ts';
import type { YMap, YNode, YScalar } from '../yamlTree.ts';
import { resolveRefs } from './references.ts';
import { referenceEnv } from './scopeEnv.ts';
import {
  type CompilerState,
  type Draft,
  type FrameDraft,
  nodePath,
  type Role,
  type SourceAt,
  slotLocations,
  slotsWithErrors,
} from './state.ts';
import { watchSelectorIsExpr } from './watch.ts';
import { entryOf, get } from './yamlAccess.ts';

export function compileFrame(s: CompilerState, frame: FrameDraft): void {
  for (const d of frame.nodes) {
    if (!d.kind) continue;
    compileNodeExpressions(s, d);
    if (d.children) compileFrame(s, d.children);
  }
}

export function compileNodeExpressions(s: CompilerState, d: Draft): void {
  const { ctx } = s;
  const node = nodePath(d);
  const compiled: CompiledNode = {
    id: d.id,
    path: node,
    kind: d.kind!,
    target: d.target,
    declIndex: d.declIndex,
    location: ctx.doc.source.location(d.idAt.offset, d.idAt.length),
    docPath: formatPath(d.segs),
    dynamic: d.dynamic,
    forEach: [],
    includeWhen: [],
    readyWhen: [],
    dependencies: [],
    applyLayer: 0,
  };
  d.compiled = compiled;
  if (d.apiVersion && d.kindName && !d.dynamic && d.kind !== 'def' && d.kind !== 'graph') {
    const { group, version } = splitApiVersion(d.apiVersion);
    compiled.resolved = {
      apiVersion: d.apiVersion,
      group,
      version,
      kind: d.kindName,
      scope: d.info?.scope ?? 'unknown',
    };
    if (d.info?.resource) compiled.resolved.resource = d.info.resource;
  }
  if (d.kind === 'patch') compiled.patchEndpoint = d.compiledPatchEndpoint ?? 'main';
  if (d.kind === 'ref' || d.kind === 'externalRef') {
    const meta = get(d.payload, 'metadata');
    const sel = get(meta, 'selector');
    compiled.refMode = !sel ? 'name' : sel.t === 'scalar' ? 'selectorExpr' : 'selector';
  }
  if (d.kind === 'watch' && d.payload?.t === 'map') {
    compiled.refMode = watchSelectorIsExpr(d.payload) ? 'selectorExpr' : 'selector';
  }

  // forEach: standalone, no omit, may not reference iterators.
  for (const it of d.iterators) {
    if (!it.value) continue;
    if (!isStandalone(it.value.value as string)) {
      ctx.error(
        GraphCode.ForEachNotStandalone,
        `forEach iterator ${JSON.stringify(it.name)}: only standalone expressions are allowed`,
        {
          node,
          segs: it.segs,
          at: { pos: it.value.pos },
          hint: 'write exactly one ${…} with nothing around it (a `|` block scalar adds a trailing newline; use `|-`)',
        },
      );
      continue;
    }
    const slot = compileSlot(s, it.value, ['forEach', it.name], it.segs, d, 'forEach', d.frame);
    if (slot) compiled.forEach.push({ name: it.name, slot } satisfies ForEachDimension);
  }
  for (const [mod, list, out] of [
    ['includeWhen', d.includeWhen, compiled.includeWhen],
    ['readyWhen', d.readyWhen, compiled.readyWhen],
  ] as const) {
    list.forEach((c, i) => {
      const v = (c.value as YScalar).value as string;
      if (!isStandalone(v)) {
        ctx.error(GraphCode.ConditionNotStandalone, `${mod}: only standalone expressions are allowed`, {
          node,
          segs: c.segs,
          at: { pos: c.value.pos },
          hint: 'write exactly one ${…} with nothing around it (a `|` block scalar adds a trailing newline; use `|-`)',
        });
        return;
      }
      const slot = compileSlot(s, c.value as YScalar, [mod, i], c.segs, d, mod, d.frame);
      if (slot) out.push(slot);
    });
  }
  if (d.payload && d.kind !== 'graph' && d.payload.t === 'map') {
    compiled.payload = buildValue(s, d.payload, [], [...d.payloadSegs], d);
    if (d.kind !== 'def') checkIdentityRule(s, d, compiled);
    if (
      d.kind === 'template' &&
      d.apiVersion?.startsWith('apiextensions.k8s.io/') &&
      d.kindName === 'CustomResourceDefinition'
    ) {
      checkCrdTemplate(s, d, compiled.payload);
    }
  }
}

/** CustomResourceDefinition templates: expressions only under metadata (design/graph.md §3.1). */
export function checkCrdTemplate(s: CompilerState, d: Draft, payload: ValueNode): void {
  const visit = (v: ValueNode): void => {
    if (v.t === 'expr') {
      if (v.slot.path[0] === 'metadata') return;
      const loc = slotLocations.get(v.slot);
      s.ctx.error(
        GraphCode.CrdTemplateExpression,
        'CEL expressions in CRDs are only supported for metadata fields: the CRD schema must be literal',
        { node: nodePath(d), segs: loc?.segs ?? d.payloadSegs, ...(loc ? { at: loc.at } : {}) },
      );
    } else if (v.t === 'object') for (const [, x] of v.entries) visit(x);
    else if (v.t === 'list') for (const x of v.items) visit(x);
  };
  visit(payload);
}

/** The forEach identity rule (design/graph.md §8). */
export function checkIdentityRule(s: CompilerState, d: Draft, compiled: CompiledNode): void {
  if (compiled.forEach.length === 0 || (d.kind !== 'template' && d.kind !== 'patch')) return;
  const payload = compiled.payload;
  const meta = valueAt(payload, 'metadata');
  const collect = (v: ValueNode | undefined): Set<string> => {
    const s = new Set<string>();
    if (v?.t === 'expr')
      for (const p of v.slot.parts)
        if (typeof p !== 'string') for (const r of p.refs) if (r.kind === 'iterator') s.add(r.name);
    return s;
  };
  const inName = collect(valueAt(meta, 'name'));
  const inNs = collect(valueAt(meta, 'namespace'));
  const cluster = d.info?.scope === 'Cluster';
  const missing = compiled.forEach
    .map((f) => f.name)
    .filter((n) => !inName.has(n) && (cluster || !inNs.has(n)));
  if (missing.length === 0) return;
  const metaE = entryOf(d.payload as YMap, 'metadata');
  const nameE = metaE?.value.t === 'map' ? entryOf(metaE.value, 'name') : undefined;
  s.ctx.error(
    GraphCode.IteratorNotInIdentity,
    s.flavor.rgd
      ? `all forEach dimensions must be used to produce a unique resource identity, missing: [${missing.join(', ')}]`
      : `every forEach iterator must appear in metadata.name (or metadata.namespace for namespaced kinds); missing: [${missing.join(', ')}]`,
    {
      node: nodePath(d),
      segs: [...d.payloadSegs, 'metadata', 'name'],
      at: { pos: nameE ? nameE.value.pos : (metaE?.keyPos ?? d.payload!.pos) },
    },
  );
}

/**
 * The payload value tree. `path` and `segs` are shared stacks (pushed and popped) to keep the
 * walk allocation-light; slots copy what they keep. Literal subtrees reuse the JSON value built
 * bottom-up instead of re-walking the YAML.
 */
export function buildValue(
  s: CompilerState,
  y: YNode,
  path: (string | number)[],
  segs: PathSegment[],
  d: Draft,
): ValueNode {
  if (y.t === 'scalar') {
    if (typeof y.value === 'string' && y.value.includes('${')) {
      const slot = compileSlot(s, y, [...path], [...segs], d, 'payload', d.frame);
      if (slot) return { t: 'expr', slot };
    }
    return { t: 'literal', value: y.value };
  }
  if (y.t === 'seq') {
    const items: ValueNode[] = [];
    let literal = true;
    y.items.forEach((item, i) => {
      path.push(i);
      segs.push(i);
      const v = buildValue(s, item, path, segs, d);
      path.pop();
      segs.pop();
      if (v.t !== 'literal') literal = false;
      items.push(v);
    });
    if (literal) return { t: 'literal', value: items.map((v) => (v as { value: JsonValue }).value) };
    return { t: 'list', items };
  }
  const entries: [string, ValueNode][] = [];
  let literal = true;
  for (const e of y.entries) {
    path.push(e.key);
    segs.push(e.key);
    if (e.key.includes('${')) {
      s.ctx.report(
        'warning',
        ExprCodes.keyNotEvaluated,
        `map key ${JSON.stringify(e.key)} contains \`\${\`: map keys are never evaluated and stay literal text`,
        { node: nodePath(d), segs, at: { pos: e.keyPos } },
      );
    }
    const v = buildValue(s, e.value, path, segs, d);
    path.pop();
    segs.pop();
    if (v.t !== 'literal') literal = false;
    entries.push([e.key, v]);
  }
  if (literal) {
    const value: { [k: string]: JsonValue } = {};
    for (const [k, v] of entries) value[k] = (v as { value: JsonValue }).value;
    return { t: 'literal', value };
  }
  return { t: 'object', entries };
}

/**
 * Scans one string, parses each expression, resolves its references and applies the reference
 * rules of its role. Returns undefined when the value could not be compiled.
 */
export function compileSlot(
  s: CompilerState,
  y: YScalar,
  path: (string | number)[],
  segs: PathSegment[],
  d: Draft | undefined,
  role: Role,
  frame: FrameDraft,
  inConditions = false,
): ExprSlot | undefined {
  const { ctx } = s;
  const value = y.value as string;
  const node = d ? nodePath(d) : undefined;
  const errorsBefore = ctx.diagnostics.length;
  const scanned = scanValue(value);
  const offsetAt = (o: number, len: number): SourceAt =>
    y.contentOffset !== undefined
      ? { offset: y.contentOffset + o, length: len }
      : y.contentMap
        ? { offset: o, length: len, map: y.contentMap }
        : { pos: y.pos };
  if (!scanned.ok) {
    const sd = scanned.diagnostic;
    ctx.error(GraphCode.ExpressionScan, `${sd.message.replace(/ \(at offset \d+\)$/, '')} [${sd.code}]`, {
      ...(node !== undefined ? { node } : {}),
      segs,
      at: offsetAt(sd.location?.offset ?? 0, sd.location?.length ?? 1),
    });
    return undefined;
  }
  if (scanned.value.kind === 'literal') return undefined;
  const sv = scanned.value;
  const exprs = sv.kind === 'standalone' ? [sv.expression] : sv.expressions;
  const parts: (string | CompiledExpr)[] = [];
  const compiledExprs: CompiledExpr[] = [];
  let ok = true;
  for (const e of exprs) {
    const parsed = parseCel(e.source, referenceEnv(frame, d));
    if (!parsed.ok) {
      ctx.error(GraphCode.CelSyntax, `invalid CEL expression \${${e.source}}: ${parsed.error.message}`, {
        ...(node !== undefined ? { node } : {}),
        segs,
        at: offsetAt(
          e.sourceOffset + parsed.error.position,
          Math.max(1, parsed.error.end - parsed.error.position),
        ),
      });
      ok = false;
      continue;
    }
    const celRefs = listReferences(parsed.value);
    const functions = extractReferences(e.source).functions;
    const ce: CompiledExpr = { cel: e.source, offset: e.offset, refs: [] };
    const where = {
      ...(node !== undefined ? { node } : {}),
      segs,
      at: offsetAt(e.offset, e.end - e.offset),
    };
    if (functions.includes('omit') && (role !== 'payload' || isIdentityPath(d, path))) {
      ctx.error(
        GraphCode.OmitNotAllowed,
        `omit() is not allowed in ${role === 'payload' ? `identity field ${formatPath(path)}` : role}`,
        where,
      );
    }
    const usesRuntime = functions.some((f) => f.startsWith('runtime.'));
    if (usesRuntime && !(role === 'status' && inConditions)) {
      ctx.error(
        GraphCode.RuntimeLibraryMisuse,
        'runtime.* functions are only allowed in spec.schema.status.conditions',
        where,
      );
    }
    const refs = celRefs.filter((r) => !(usesRuntime && r.root === 'runtime' && r.path.length === 0));
    ce.refs = resolveRefs(
      s,
      refs.map((r) => ({
        name: r.root,
        fields: fieldNames(r.path),
        optional: r.optional,
      })),
      d,
      role,
      frame,
      path,
      where,
      (name) => {
        const i = e.source.search(new RegExp(`(?<![\\w.])${name}\\b`));
        return i < 0 ? undefined : offsetAt(e.sourceOffset + i, name.length);
      },
    );
    compiledExprs.push(ce);
  }
  if (!ok) return undefined;
  if (sv.kind === 'standalone') parts.push(compiledExprs[0]!);
  else {
    let k = 0;
    for (const p of sv.parts) {
      if (p.kind === 'literal') parts.push(p.text);
      else parts.push(compiledExprs[k++]!);
    }
  }
  const slot: ExprSlot = { mode: sv.kind, source: value, parts, path };
  slotLocations.set(slot, {
    at: offsetAt(0, value.length),
    segs: [...segs],
    ...(node !== undefined ? { node } : {}),
  });
  if (ctx.diagnostics.length > errorsBefore) slotsWithErrors.add(slot);
  return slot;
}

function isIdentityPath(d: Draft | undefined, path: readonly (string | number)[]): boolean {
  return (
    !!d &&
    d.kind !== 'def' &&
    path.length === 2 &&
    path[0] === 'metadata' &&
    (path[1] === 'name' || path[1] === 'namespace')
  );
}

function fieldNames(path: readonly { kind: string; name?: string; index?: unknown }[]): string[] {
  const out: string[] = [];
  for (const step of path) {
    if (step.kind === 'field' && step.name !== undefined) out.push(step.name);
    else if (step.kind === 'index' && typeof step.index === 'string') out.push(step.index);
    else break;
  }
  return out;
}

function valueAt(v: ValueNode | undefined, key: string): ValueNode | undefined {
  if (!v) return undefined;
  if (v.t === 'object') return v.entries.find(([k]) => k === key)?.[1];
  if (v.t === 'literal' && v.value && typeof v.value === 'object' && !Array.isArray(v.value)) {
    const x = (v.value as { [k: string]: JsonValue })[key];
    return x === undefined ? undefined : { t: 'literal', value: x };
  }
  return undefined;
}
