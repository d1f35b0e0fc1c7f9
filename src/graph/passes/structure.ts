// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax
/**
 * Structure pass (kro: the parser step): reads each frame's node list into drafts — ids and their
 * naming rules, exactly one node kind, allowed fields and modifiers per kind, subgraphs, forEach
 * iterators and includeWhen/readyWhen lists. Nothing here parses CEL.
 */
import type { PathSegment } from '../../expr/index.ts';
import { GraphCode } from '../codes.ts';
import type { NodeKind } from '../model.ts';
import { toJson, type YEntry, type YNode } from '../yamlTree.ts';
import { isUndeclarable } from './celNames.ts';
import { MODIFIERS } from './flavor.ts';
import { readIdentity } from './identity.ts';
import { type CompilerState, type Draft, type FrameDraft, nodePath } from './state.ts';
import { entryOf, str } from './yamlAccess.ts';

const MAX_DIMENSIONS = 10;

export function readFrame(
  s: CompilerState,
  frame: FrameDraft,
  items: YNode[],
  listSegs: PathSegment[],
): void {
  const { ctx, flavor } = s;
  items.forEach((item, i) => {
    const segs = [...listSegs, i];
    if (item.t !== 'map') {
      ctx.error(GraphCode.InvalidShape, 'a node must be a map with an id and one node kind', {
        segs,
        at: { pos: item.pos },
      });
      return;
    }
    const idE = entryOf(item, 'id');
    const id = str(idE?.value);
    const pathOf = (x: string) => (frame.path ? `${frame.path}.${x}` : x);
    if (id === undefined || id === '') {
      ctx.error(GraphCode.MissingId, 'node has no id', {
        segs: [...segs, 'id'],
        at: { pos: idE ? idE.value.pos : item.pos },
      });
      return;
    }
    const draft: Draft = {
      id,
      frame,
      declIndex: frame.nodes.length,
      yaml: item,
      segs,
      idAt: idE!.value.pos,
      payloadSegs: segs,
      target: 'consumer',
      iterators: [],
      includeWhen: [],
      readyWhen: [],
      deps: new Map(),
      captures: new Set(),
      dynamic: false,
      valid: true,
    };
    const at = { pos: idE!.value.pos };
    const where = { node: pathOf(id), segs: [...segs, 'id'], at };
    if (!flavor.idPattern.test(id)) {
      if (flavor.rgd) {
        ctx.error(
          GraphCode.IdNamingConvention,
          `naming convention violation: resource id ${JSON.stringify(id)} must be lowerCamelCase (^[a-z][a-zA-Z0-9]*$)`,
          where,
        );
      } else {
        ctx.error(
          GraphCode.InvalidId,
          `node id ${JSON.stringify(id)} must match ^[A-Za-z][A-Za-z0-9]*$`,
          where,
        );
      }
    } else if (flavor.reserved.has(id)) {
      ctx.error(
        GraphCode.ReservedId,
        `id is reserved: ${JSON.stringify(id)} cannot be used as a node id`,
        where,
      );
    } else if (isUndeclarable(id)) {
      ctx.error(
        GraphCode.IdShadowsBuiltin,
        `node id ${JSON.stringify(id)} cannot be declared as a CEL variable (a JavaScript object property name the CEL engine reserves); choose another id`,
        where,
      );
    }
    if (frame.byId.has(id)) {
      ctx.error(
        GraphCode.DuplicateId,
        `duplicate node id ${JSON.stringify(id)}${frame.path ? ` in graph ${JSON.stringify(frame.path)}` : ''}`,
        where,
      );
      return;
    }
    frame.byId.set(id, draft);
    frame.nodes.push(draft);
    readNode(s, draft);
  });
}

export function readNode(s: CompilerState, d: Draft): void {
  const { ctx, flavor } = s;
  const node = nodePath(d);
  const kinds: YEntry[] = [];
  for (const e of d.yaml.entries) {
    if ((flavor.kindFields as readonly string[]).includes(e.key)) kinds.push(e);
    else if (!flavor.allowedFields.has(e.key)) {
      const known = [...flavor.allowedFields].join(', ');
      ctx.error(
        GraphCode.UnknownNodeField,
        `unknown field ${JSON.stringify(e.key)} on node (allowed: ${known})`,
        {
          node,
          segs: [...d.segs, e.key],
          at: { pos: e.keyPos },
        },
      );
    }
  }
  const kindList = flavor.kindFields.join(', ');
  if (kinds.length !== 1) {
    ctx.error(
      GraphCode.NodeKindCount,
      flavor.rgd
        ? `exactly one of template, externalRef must be set${kinds.length > 1 ? ` (found ${kinds.map((k) => k.key).join(', ')})` : ''}`
        : `exactly one of ${kindList} must be set${kinds.length > 1 ? ` (found ${kinds.map((k) => k.key).join(', ')})` : ''}`,
      { node, segs: d.segs, at: { pos: kinds[1]?.keyPos ?? d.idAt } },
    );
    d.valid = false;
    if (kinds.length === 0) return;
  }
  const kindE = kinds[0]!;
  d.kind = kindE.key as NodeKind;
  d.payload = kindE.value;
  d.payloadSegs = [...d.segs, kindE.key];

  // target (krop)
  const targetE = entryOf(d.yaml, 'target');
  if (targetE && flavor.source === 'KropRGD') {
    const t = targetE.value.t === 'scalar' ? targetE.value.value : undefined;
    if (t === null || t === '' || t === 'consumer') d.target = 'consumer';
    else if (t === 'provider' || t === 'host') d.target = t;
    else {
      ctx.error(
        GraphCode.InvalidTarget,
        `InvalidTarget: target ${JSON.stringify(toJson(targetE.value))} must be one of consumer, provider, host`,
        { node, segs: [...d.segs, 'target'], at: { pos: targetE.value.pos } },
      );
    }
  }

  // modifiers allowed per kind
  const allowed = MODIFIERS[d.kind];
  for (const mod of ['includeWhen', 'readyWhen', 'forEach'] as const) {
    const e = entryOf(d.yaml, mod);
    if (!e) continue;
    if (mod === 'forEach' && d.kind === 'externalRef') {
      ctx.error(GraphCode.ExternalRefForEach, 'cannot use externalRef with forEach', {
        node,
        segs: [...d.segs, mod],
        at: { pos: e.keyPos },
      });
      // Keep the iterators in scope so that the payload does not cascade into unknown identifiers.
      readForEach(s, d, e);
      continue;
    }
    if (!allowed[mod]) {
      const msg =
        mod === 'forEach' && d.kind === 'ref'
          ? 'forEach is not supported on ref nodes; use metadata.selector to read many objects'
          : mod === 'forEach' && d.kind === 'watch'
            ? 'forEach is not supported on watch nodes: a watch already reads a list; fan out over it in the node that uses it'
            : mod === 'readyWhen' && d.kind === 'patch'
              ? 'readyWhen is not supported on patch nodes: a patch publishes no value; add a ref to the target and put readyWhen there'
              : `${mod} is not supported on ${d.kind} nodes${d.kind === 'graph' ? '; put modifiers on the inner nodes' : ''}`;
      ctx.error(GraphCode.ModifierNotAllowed, msg, { node, segs: [...d.segs, mod], at: { pos: e.keyPos } });
      if (mod === 'forEach' && d.kind !== 'graph') readForEach(s, d, e);
      continue;
    }
    if (mod === 'forEach') readForEach(s, d, e);
    else readConditions(s, d, e, mod);
  }

  if (d.kind === 'graph') {
    readSubgraph(s, d);
    return;
  }
  if (d.payload.t !== 'map') {
    ctx.error(GraphCode.PayloadNotObject, `${d.kind} must be a map`, {
      node,
      segs: d.payloadSegs,
      at: { pos: d.payload.pos },
    });
    d.valid = false;
    return;
  }
  if (d.kind !== 'def') readIdentity(s, d, d.payload);
}

export function readSubgraph(s: CompilerState, d: Draft): void {
  const { ctx } = s;
  const node = nodePath(d);
  const p = d.payload!;
  const children: FrameDraft = {
    path: node,
    depth: d.frame.depth + 1,
    parent: d.frame,
    owner: d,
    nodes: [],
    byId: new Map(),
  };
  d.children = children;
  if (p.t !== 'map') {
    ctx.error(GraphCode.SubgraphShape, 'graph must be a map {nodes: [...]}', {
      node,
      segs: d.payloadSegs,
      at: { pos: p.pos },
    });
    return;
  }
  for (const e of p.entries) {
    if (e.key !== 'nodes') {
      ctx.error(
        GraphCode.SubgraphShape,
        `unknown field ${JSON.stringify(e.key)} in graph: a graph payload holds only nodes`,
        {
          node,
          segs: [...d.payloadSegs, e.key],
          at: { pos: e.keyPos },
        },
      );
    }
  }
  const nodesE = entryOf(p, 'nodes');
  if (nodesE?.value.t !== 'seq' || nodesE.value.items.length === 0) {
    if (nodesE && nodesE.value.t !== 'seq' && !(nodesE.value.t === 'scalar' && nodesE.value.value === null)) {
      ctx.error(GraphCode.SubgraphShape, 'graph.nodes must be a list', {
        node,
        segs: [...d.payloadSegs, 'nodes'],
        at: { pos: nodesE.value.pos },
      });
    } else {
      ctx.error(GraphCode.SubgraphEmpty, 'empty subgraph: graph.nodes must contain at least one node', {
        node,
        segs: [...d.payloadSegs, 'nodes'],
        at: { pos: nodesE ? nodesE.keyPos : p.pos },
      });
    }
    return;
  }
  readFrame(s, children, nodesE.value.items, [...d.payloadSegs, 'nodes']);
}

export function readForEach(s: CompilerState, d: Draft, e: YEntry): void {
  const { ctx, flavor } = s;
  const node = nodePath(d);
  const segs = [...d.segs, 'forEach'];
  if (e.value.t === 'scalar' && e.value.value === null) return;
  if (e.value.t !== 'seq') {
    ctx.error(GraphCode.ForEachShape, 'forEach must be a list of single-entry maps {iterator: "${expr}"}', {
      node,
      segs,
      at: { pos: e.value.pos },
    });
    return;
  }
  if (flavor.rgd && e.value.items.length > MAX_DIMENSIONS) {
    ctx.error(
      GraphCode.TooManyDimensions,
      `forEach has ${e.value.items.length} dimensions; at most ${MAX_DIMENSIONS} are allowed`,
      {
        node,
        segs,
        at: { pos: e.keyPos },
      },
    );
  }
  const seen = new Set<string>();
  e.value.items.forEach((item, i) => {
    const isegs = [...segs, i];
    if (item.t !== 'map' || item.entries.length !== 1) {
      ctx.error(
        GraphCode.ForEachShape,
        'each forEach entry must be a map with exactly one iterator: {name: "${expr}"}',
        {
          node,
          segs: isegs,
          at: { pos: item.pos },
        },
      );
      return;
    }
    const it = item.entries[0]!;
    const name = it.key;
    const where = { node, segs: [...isegs, name], at: { pos: it.keyPos } };
    if (!flavor.idPattern.test(name)) {
      ctx.error(
        GraphCode.IteratorInvalidName,
        flavor.rgd
          ? `forEach iterator ${JSON.stringify(name)} must be lowerCamelCase (^[a-z][a-zA-Z0-9]*$)`
          : `forEach iterator ${JSON.stringify(name)} must match ^[A-Za-z][A-Za-z0-9]*$`,
        where,
      );
    } else if (flavor.reserved.has(name) || isUndeclarable(name)) {
      ctx.error(
        GraphCode.IteratorReserved,
        `forEach iterator name ${JSON.stringify(name)} is reserved`,
        where,
      );
    } else if (flavor.rgd ? s.rgdIds.has(name) || d.frame.byId.has(name) : name === d.id) {
      ctx.error(
        GraphCode.IteratorClashesWithId,
        flavor.rgd
          ? `forEach iterator ${JSON.stringify(name)} conflicts with a resource id`
          : `forEach iterator ${JSON.stringify(name)} must not equal the node's own id`,
        where,
      );
    }
    if (seen.has(name)) {
      ctx.error(GraphCode.IteratorDuplicate, `duplicate forEach iterator ${JSON.stringify(name)}`, where);
      return;
    }
    seen.add(name);
    const v = it.value;
    if (v.t !== 'scalar' || typeof v.value !== 'string') {
      ctx.error(
        GraphCode.ForEachShape,
        `forEach iterator ${JSON.stringify(name)} must be a string "\${expr}"`,
        {
          node,
          segs: [...isegs, name],
          at: { pos: v.pos },
        },
      );
      d.iterators.push({ name, value: undefined, segs: [...isegs, name], at: it.keyPos });
      return;
    }
    d.iterators.push({ name, value: v, segs: [...isegs, name], at: it.keyPos });
  });
}

export function readConditions(
  s: CompilerState,
  d: Draft,
  e: YEntry,
  mod: 'includeWhen' | 'readyWhen',
): void {
  const { ctx } = s;
  const node = nodePath(d);
  const segs = [...d.segs, mod];
  if (e.value.t === 'scalar' && e.value.value === null) return;
  if (e.value.t !== 'seq') {
    ctx.error(GraphCode.ConditionShape, `${mod} must be a list of "\${…}" expressions`, {
      node,
      segs,
      at: { pos: e.value.pos },
    });
    return;
  }
  e.value.items.forEach((item, i) => {
    const list = mod === 'includeWhen' ? d.includeWhen : d.readyWhen;
    if (item.t !== 'scalar' || typeof item.value !== 'string') {
      ctx.error(GraphCode.ConditionShape, `${mod} entries must be strings "\${…}"`, {
        node,
        segs: [...segs, i],
        at: { pos: item.pos },
      });
      return;
    }
    list.push({ value: item, segs: [...segs, i] });
  });
}
