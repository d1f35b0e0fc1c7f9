/** Small readers over the located YAML tree (./yamlTree.ts) that every pass uses. */
import type { PathSegment } from '../../expr/index.ts';
import type { Pos, YEntry, YNode } from '../yamlTree.ts';

export function entryOf(map: YNode | undefined, key: string): YEntry | undefined {
  if (map?.t !== 'map') return undefined;
  for (const e of map.entries) if (e.key === key) return e;
  return undefined;
}

export function get(node: YNode | undefined, key: string): YNode | undefined {
  return entryOf(node, key)?.value;
}

export function str(node: YNode | undefined): string | undefined {
  return node && node.t === 'scalar' && typeof node.value === 'string' ? node.value : undefined;
}

/** Parses `a.b[0]["x.y"]` into segments. */
export function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push(JSON.parse(m[3]) as string);
  }
  return out;
}

/** The position of a document field path: the deepest existing node (a key for map entries). */
export function locatePath(root: YNode, path: string): { pos: Pos } | undefined {
  let node: YNode | undefined = root;
  let at: Pos = root.pos;
  for (const seg of parsePath(path)) {
    if (node?.t === 'map' && typeof seg === 'string') {
      const e = entryOf(node, seg);
      if (!e) break;
      node = e.value;
      at = e.value.t === 'scalar' ? e.value.pos : e.keyPos;
    } else if (node?.t === 'seq' && typeof seg === 'number' && node.items[seg]) {
      node = node.items[seg];
      at = node.pos;
    } else break;
  }
  return { pos: at };
}
