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

/** Resolves root identifiers through the frame chain and applies the reference rules of `role`. */
export function resolveRefs(
  s: CompilerState,
  refs: { name: string; fields: string[]; optional: boolean }[],
  d: Draft | undefined,
  role: Role,
  frame: FrameDraft,
  readerPath: (string | number)[],
  where: { node?: string; segs: PathSegment[]; at: SourceAt },
  /** Where a name sits in the expression: an unknown name is reported there, not on the whole `${…}`. */
  locateName?: (name: string) => SourceAt | undefined,
): ExprRef[] {
  const { ctx, flavor } = s;
  const out: ExprRef[] = [];
  const unknown: string[] = [];
  const frames = new Set<number>();
  const label = formatPath(readerPath);
  const seen = new Set<string>();
  for (const r of refs) {
    const key = `${r.name}.${r.fields.join('.')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const isCollection = (d?.iterators.length ?? 0) > 0;
    // Iterators and `each`.
    if (d && r.name === 'each' && role === 'readyWhen' && isCollection) {
      out.push({ name: r.name, kind: 'each', fields: r.fields, optional: r.optional });
      continue;
    }
    if (d?.iterators.some((it) => it.name === r.name)) {
      if (role === 'forEach') {
        ctx.error(
          GraphCode.IteratorReferencesIterator,
          `forEach iterator expressions cannot reference other iterators (found ${JSON.stringify(r.name)})`,
          where,
        );
        continue;
      }
      if (role === 'payload') {
        out.push({ name: r.name, kind: 'iterator', fields: r.fields, optional: r.optional });
        continue;
      }
    }
    if (role === 'readyWhen' && d) {
      if (r.name === d.id && !isCollection) {
        out.push({
          name: r.name,
          kind: 'node',
          target: nodePath(d),
          fields: r.fields,
          optional: r.optional,
        });
        continue;
      }
      if (r.name === d.id && isCollection) {
        ctx.error(
          GraphCode.ReadyWhenCollectionById,
          `readyWhen: references unknown identifiers: [${r.name}]; readyWhen of a collection is evaluated per item: use each`,
          where,
        );
        continue;
      }
      const other =
        lookup(r.name, frame) ??
        (flavor.rgd && r.name === 'schema' ? { draft: undefined, depth: 0 } : undefined);
      if (other) {
        ctx.error(
          GraphCode.ReadyWhenForeignReference,
          `readyWhen may only reference the node itself${isCollection ? ' (each)' : ` (${d.id})`}; found ${JSON.stringify(r.name)}`,
          where,
        );
      } else unknown.push(r.name);
      continue;
    }
    if (flavor.rgd && r.name === 'schema') {
      out.push({ name: r.name, kind: 'schema', target: 'schema', fields: r.fields, optional: r.optional });
      frames.add(0);
      continue;
    }
    const hit = lookup(r.name, frame);
    if (!hit) {
      unknown.push(r.name);
      continue;
    }
    const target = hit.draft;
    if (d && target === d) {
      if (role === 'includeWhen') {
        out.push({
          name: r.name,
          kind: 'node',
          target: nodePath(d),
          fields: r.fields,
          optional: r.optional,
        });
        continue;
      }
      ctx.error(
        GraphCode.SelfReference,
        `self references are not allowed: node ${JSON.stringify(d.id)} references itself`,
        where,
      );
      continue;
    }
    const patchReferenced = (id: string): void =>
      ctx.error(
        GraphCode.PatchReferenced,
        `patch node ${JSON.stringify(id)} does not publish a value into scope and cannot be referenced in CEL expressions`,
        where,
      );
    if (target.kind === 'patch') {
      patchReferenced(target.id);
      continue;
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
        continue;
      }
      if (child.kind === 'patch') {
        patchReferenced(child.id);
        continue;
      }
      targetPath = nodePath(child);
    }
    frames.add(hit.depth);
    out.push({
      name: r.name,
      kind: hit.depth === frame.depth ? 'node' : 'capture',
      target: targetPath,
      fields: r.fields,
      optional: r.optional,
    });
    if (role === 'status') continue; // soft references: no edges
    if (!d) continue;
    // The edge goes to the node of the target's frame that contains the reader.
    let reader: Draft = d;
    while (reader.frame !== target.frame) {
      const owner = reader.frame.owner;
      if (!owner) break;
      owner.captures.add(nodePath(target));
      reader = owner;
    }
    if (reader.frame !== target.frame) continue;
    if (reader === target) continue; // a child referencing an ancestor graph node: no edge
    const idx = target.declIndex;
    const labels = reader.deps.get(idx) ?? new Set<string>();
    // Label edges into a graph node with the reader's path relative to that node (`inner.spec.x`).
    const where2 = reader === d ? label : `${nodePath(d).slice(nodePath(reader).length + 1)}.${label}`;
    labels.add(where2);
    reader.deps.set(idx, labels);
  }
  if (frames.size > 1) {
    ctx.error(
      GraphCode.MixedScopes,
      'expression mixes node references from different graph scopes; compute the combined value in a def in one scope',
      where,
    );
  }
  if (unknown.length > 0) {
    const prefix = role === 'readyWhen' ? 'readyWhen: ' : '';
    // "did you mean": the closest node id visible from here.
    const visible: string[] = [];
    for (let f: FrameDraft | undefined = frame; f; f = f.parent) visible.push(...f.byId.keys());
    if (flavor.rgd) visible.push('schema');
    const hint = unknown.length === 1 ? didYouMean(unknown[0] ?? '', visible) : '';
    const at = unknown.length === 1 ? locateName?.(unknown[0]!) : undefined;
    ctx.error(
      GraphCode.UnknownIdentifier,
      `${prefix}references unknown identifiers: [${unknown.join(', ')}]${hint}`,
      at ? { ...where, at } : where,
    );
  }
  return out;
}

/** Finds the nearest definition of `name` from `frame` outwards (shadowing: nearest wins). */
export function lookup(name: string, frame: FrameDraft): { draft: Draft; depth: number } | undefined {
  for (let f: FrameDraft | undefined = frame; f; f = f.parent) {
    const hit = f.byId.get(name);
    if (hit?.kind) return { draft: hit, depth: f.depth };
  }
  return undefined;
}
