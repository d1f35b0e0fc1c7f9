/**
 * Reference pass: resolves each root identifier of an expression through the frame chain
 * (shadowing: nearest wins) and applies the reference rules of its role (self, patch, readyWhen,
 * iterators, each, scopes), recording dependency edges and graph-node captures on the drafts.
 */
import { didYouMean } from '../../diag/suggest.ts';
import { formatPath, type PathSegment } from '../../expr/index.ts';
import { GraphCode } from '../codes.ts';
import type { ExprRef } from '../model.ts';
import {
  type CompilerState,
  type Draft,
  type FrameDraft,
  nodePath,
  type Role,
  type SourceAt,
} from './state.ts';

/** A root identifier of an expression, with the fields it reads. */
type RootRef = { name: string; fields: string[]; optional: boolean };

/** One expression's reference resolution: its reader, role and place, and what it has found so far. */
interface RefPass {
  s: CompilerState;
  d: Draft | undefined;
  role: Role;
  frame: FrameDraft;
  /** The reader's path, formatted: the label of the dependency edges it adds. */
  label: string;
  where: { node?: string; segs: PathSegment[]; at: SourceAt };
  locateName: ((name: string) => SourceAt | undefined) | undefined;
  isCollection: boolean;
  out: ExprRef[];
  unknown: string[];
  /** Depths of the frames the expression's node references resolve in (more than one is an error). */
  frames: Set<number>;
}

/** Resolves root identifiers through the frame chain and applies the reference rules of `role`. */
export function resolveRefs(
  s: CompilerState,
  refs: RootRef[],
  d: Draft | undefined,
  role: Role,
  frame: FrameDraft,
  readerPath: (string | number)[],
  where: { node?: string; segs: PathSegment[]; at: SourceAt },
  /** Where a name sits in the expression: an unknown name is reported there, not on the whole `${…}`. */
  locateName?: (name: string) => SourceAt | undefined,
): ExprRef[] {
  const p: RefPass = {
    s,
    d,
    role,
    frame,
    label: formatPath(readerPath),
    where,
    locateName,
    isCollection: (d?.iterators.length ?? 0) > 0,
    out: [],
    unknown: [],
    frames: new Set<number>(),
  };
  const seen = new Set<string>();
  for (const r of refs) {
    const key = `${r.name}.${r.fields.join('.')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    resolveRef(p, r);
  }
  if (p.frames.size > 1) {
    s.ctx.error(
      GraphCode.MixedScopes,
      'expression mixes node references from different graph scopes; compute the combined value in a def in one scope',
      where,
    );
  }
  if (p.unknown.length > 0) reportUnknown(p);
  return p.out;
}

/** One root identifier: an iterator or `each`, the reader itself in readyWhen, `schema`, or a node. */
function resolveRef(p: RefPass, r: RootRef): void {
  const { d, role } = p;
  if (iteratorRef(p, r)) return;
  if (role === 'readyWhen' && d) {
    readyWhenRef(p, d, r);
    return;
  }
  if (p.s.flavor.rgd && r.name === 'schema') {
    p.out.push({ name: r.name, kind: 'schema', target: 'schema', fields: r.fields, optional: r.optional });
    p.frames.add(0);
    return;
  }
  nodeRef(p, r);
}

/** Iterators and `each`; whether the reference was one of them (and so is handled). */
function iteratorRef(p: RefPass, r: RootRef): boolean {
  const { d, role, isCollection } = p;
  if (d && r.name === 'each' && role === 'readyWhen' && isCollection) {
    p.out.push({ name: r.name, kind: 'each', fields: r.fields, optional: r.optional });
    return true;
  }
  if (d?.iterators.some((it) => it.name === r.name)) {
    if (role === 'forEach') {
      p.s.ctx.error(
        GraphCode.IteratorReferencesIterator,
        `forEach iterator expressions cannot reference other iterators (found ${JSON.stringify(r.name)})`,
        p.where,
      );
      return true;
    }
    if (role === 'payload') {
      p.out.push({ name: r.name, kind: 'iterator', fields: r.fields, optional: r.optional });
      return true;
    }
  }
  return false;
}

/** readyWhen reads the node itself only (by id, or `each` per item of a collection). */
function readyWhenRef(p: RefPass, d: Draft, r: RootRef): void {
  const { isCollection } = p;
  if (r.name === d.id && !isCollection) {
    p.out.push({
      name: r.name,
      kind: 'node',
      target: nodePath(d),
      fields: r.fields,
      optional: r.optional,
    });
    return;
  }
  if (r.name === d.id && isCollection) {
    p.s.ctx.error(
      GraphCode.ReadyWhenCollectionById,
      `readyWhen: references unknown identifiers: [${r.name}]; readyWhen of a collection is evaluated per item: use each`,
      p.where,
    );
    return;
  }
  const other =
    lookup(r.name, p.frame) ??
    (p.s.flavor.rgd && r.name === 'schema' ? { draft: undefined, depth: 0 } : undefined);
  if (other) {
    p.s.ctx.error(
      GraphCode.ReadyWhenForeignReference,
      `readyWhen may only reference the node itself${isCollection ? ' (each)' : ` (${d.id})`}; found ${JSON.stringify(r.name)}`,
      p.where,
    );
  } else p.unknown.push(r.name);
}

/** A node reference: self and patch rules, a graph node's child, then the dependency edge. */
function nodeRef(p: RefPass, r: RootRef): void {
  const { d, role, frame, where } = p;
  const { ctx } = p.s;
  const hit = lookup(r.name, frame);
  if (!hit) {
    p.unknown.push(r.name);
    return;
  }
  const target = hit.draft;
  if (d && target === d) {
    if (role === 'includeWhen') {
      p.out.push({
        name: r.name,
        kind: 'node',
        target: nodePath(d),
        fields: r.fields,
        optional: r.optional,
      });
      return;
    }
    ctx.error(
      GraphCode.SelfReference,
      `self references are not allowed: node ${JSON.stringify(d.id)} references itself`,
      where,
    );
    return;
  }
  const patchReferenced = (id: string): void =>
    ctx.error(
      GraphCode.PatchReferenced,
      `patch node ${JSON.stringify(id)} does not publish a value into scope and cannot be referenced in CEL expressions`,
      where,
    );
  if (target.kind === 'patch') {
    patchReferenced(target.id);
    return;
  }
  let targetPath = nodePath(target);
  // Addressing a graph node's children: `${g.child…}`.
  if (target.kind === 'graph' && target.children && r.fields.length > 0) {
    const child = target.children.byId.get(r.fields[0]!);
    if (!child) {
      ctx.error(
        GraphCode.UnknownChild,
        `graph node ${JSON.stringify(target.id)} has no node ${JSON.stringify(r.fields[0])}`,
        where,
      );
      return;
    }
    if (child.kind === 'patch') {
      patchReferenced(child.id);
      return;
    }
    targetPath = nodePath(child);
  }
  p.frames.add(hit.depth);
  p.out.push({
    name: r.name,
    kind: hit.depth === frame.depth ? 'node' : 'capture',
    target: targetPath,
    fields: r.fields,
    optional: r.optional,
  });
  if (role === 'status') return; // soft references: no edges
  if (d) addEdge(p, d, target);
}

/** The edge goes to the node of the target's frame that contains the reader; graph nodes on the way capture. */
function addEdge(p: RefPass, d: Draft, target: Draft): void {
  let reader: Draft = d;
  while (reader.frame !== target.frame) {
    const owner = reader.frame.owner;
    if (!owner) break;
    owner.captures.add(nodePath(target));
    reader = owner;
  }
  if (reader.frame !== target.frame) return;
  if (reader === target) return; // a child referencing an ancestor graph node: no edge
  const idx = target.declIndex;
  const labels = reader.deps.get(idx) ?? new Set<string>();
  // Label edges into a graph node with the reader's path relative to that node (`inner.spec.x`).
  const where2 = reader === d ? p.label : `${nodePath(d).slice(nodePath(reader).length + 1)}.${p.label}`;
  labels.add(where2);
  reader.deps.set(idx, labels);
}

/** Unknown identifiers, with "did you mean" the closest node id visible from here. */
function reportUnknown(p: RefPass): void {
  const { unknown, role, frame } = p;
  const prefix = role === 'readyWhen' ? 'readyWhen: ' : '';
  const visible: string[] = [];
  for (let f: FrameDraft | undefined = frame; f; f = f.parent) visible.push(...f.byId.keys());
  if (p.s.flavor.rgd) visible.push('schema');
  const hint = unknown.length === 1 ? didYouMean(unknown[0] ?? '', visible) : '';
  const at = unknown.length === 1 ? p.locateName?.(unknown[0]!) : undefined;
  p.s.ctx.error(
    GraphCode.UnknownIdentifier,
    `${prefix}references unknown identifiers: [${unknown.join(', ')}]${hint}`,
    at ? { ...p.where, at } : p.where,
  );
}

/** Finds the nearest definition of `name` from `frame` outwards (shadowing: nearest wins). */
export function lookup(name: string, frame: FrameDraft): { draft: Draft; depth: number } | undefined {
  for (let f: FrameDraft | undefined = frame; f; f = f.parent) {
    const hit = f.byId.get(name);
    if (hit?.kind) return { draft: hit, depth: f.depth };
  }
  return undefined;
}
