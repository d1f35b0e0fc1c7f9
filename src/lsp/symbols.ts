/**
 * Document symbols: each Graph or RGD of the text, its nodes (nested graph frames as children) and the
 * fields of an RGD's schema, read from the YAML tree so that the outline follows the text.
 */
import { type DocumentSymbol, SymbolKind } from 'vscode-languageserver';
import type { YEntry, YMap, YNode } from '../graph/yamlTree.ts';
import type { Analysis } from './analysis.ts';

type ToRange = (start: number, end: number) => DocumentSymbol['range'];

function entry(n: YNode | undefined, key: string): YEntry | undefined {
  return n?.t === 'map' ? n.entries.find((e) => e.key === key) : undefined;
}

function scalar(n: YNode | undefined): string | undefined {
  return n?.t === 'scalar' && n.value !== null ? String(n.value) : undefined;
}

function nodeSymbols(list: YNode | undefined, range: ToRange): DocumentSymbol[] {
  if (list?.t !== 'seq') return [];
  const out: DocumentSymbol[] = [];
  for (const item of list.items) {
    if (item.t !== 'map') continue;
    const id = entry(item, 'id');
    if (!id) continue;
    const payload = item.entries.find((e) =>
      ['template', 'ref', 'externalRef', 'patch', 'watch', 'def', 'graph'].includes(e.key),
    );
    const kind = scalar(entry(payload?.value, 'kind')?.value);
    const sub = payload?.key === 'graph' ? nodeSymbols(entry(payload.value, 'nodes')?.value, range) : [];
    out.push({
      name: scalar(id.value) ?? '?',
      detail: kind ? `${payload?.key} ${kind}` : (payload?.key ?? ''),
      kind: payload?.key === 'graph' ? SymbolKind.Namespace : SymbolKind.Object,
      range: range(item.pos.offset, item.pos.offset + item.pos.length),
      selectionRange: range(id.value.pos.offset, id.value.pos.offset + id.value.pos.length),
      ...(sub.length > 0 ? { children: sub } : {}),
    });
  }
  return out;
}

function fieldSymbols(map: YNode | undefined, range: ToRange): DocumentSymbol[] {
  if (map?.t !== 'map') return [];
  return (map as YMap).entries.map((e) => {
    const children = fieldSymbols(e.value, range);
    return {
      name: e.key,
      detail: scalar(e.value) ?? '',
      kind: SymbolKind.Field,
      range: range(e.keyPos.offset, e.value.pos.offset + e.value.pos.length),
      selectionRange: range(e.keyPos.offset, e.keyPos.offset + e.keyPos.length),
      ...(children.length > 0 ? { children } : {}),
    };
  });
}

export function documentSymbols(analysis: Analysis, range: ToRange): DocumentSymbol[] {
  const out: DocumentSymbol[] = [];
  for (const { doc, result } of analysis.documents) {
    const root = doc.root;
    if (!result || !root) continue;
    const spec = entry(root, 'spec')?.value;
    const children = [
      ...nodeSymbols(entry(spec, 'resources')?.value ?? entry(spec, 'nodes')?.value, range),
      ...fieldSymbols(entry(entry(spec, 'schema')?.value, 'spec')?.value, range).map((f) => ({
        ...f,
        name: `schema.spec.${f.name}`,
      })),
    ];
    const name = scalar(entry(entry(root, 'metadata')?.value, 'name')?.value) ?? result.object.kind;
    out.push({
      name,
      detail: result.object.kind,
      kind: SymbolKind.Class,
      range: range(root.pos.offset, root.pos.offset + root.pos.length),
      selectionRange: range(root.pos.offset, root.pos.offset),
      children,
    });
  }
  return out;
}
