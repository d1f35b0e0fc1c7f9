/**
 * The three front ends (kro Graph, kro RGD, krop RGD) differ mostly in the facts below: which list
 * holds the nodes, which node kinds and fields exist, the id pattern and the reserved words. The passes
 * read them from here rather than branching on the source kind.
 */

import { KRO_API_VERSION } from '../kroApi.ts';
import type { NodeKind, SourceKind } from '../model.ts';
import { GRAPH_RESERVED, RGD_RESERVED } from '../reserved.ts';

const GRAPH_ID = /^[A-Za-z][A-Za-z0-9]*$/;
const RGD_ID = /^[a-z][a-zA-Z0-9]*$/;

export interface Flavor {
  source: SourceKind;
  rgd: boolean;
  listKey: 'nodes' | 'resources';
  kindFields: readonly NodeKind[];
  idPattern: RegExp;
  reserved: ReadonlySet<string>;
  allowedFields: ReadonlySet<string>;
}

export const GRAPH_FLAVOR: Flavor = {
  source: 'Graph',
  rgd: false,
  listKey: 'nodes',
  kindFields: ['template', 'ref', 'watch', 'def', 'graph', 'patch'],
  idPattern: GRAPH_ID,
  reserved: GRAPH_RESERVED,
  allowedFields: new Set([
    'id',
    'template',
    'ref',
    'watch',
    'def',
    'graph',
    'patch',
    'includeWhen',
    'readyWhen',
    'forEach',
  ]),
};

const KRO_RGD_FLAVOR: Flavor = {
  source: 'KroRGD',
  rgd: true,
  listKey: 'resources',
  kindFields: ['template', 'externalRef'],
  idPattern: RGD_ID,
  reserved: RGD_RESERVED,
  allowedFields: new Set(['id', 'template', 'externalRef', 'includeWhen', 'readyWhen', 'forEach']),
};

const KROP_RGD_FLAVOR: Flavor = {
  ...KRO_RGD_FLAVOR,
  source: 'KropRGD',
  allowedFields: new Set(['id', 'template', 'externalRef', 'includeWhen', 'readyWhen', 'forEach', 'target']),
};

/** Modifiers accepted per node kind (design/graph.md §5). */
export const MODIFIERS: Record<NodeKind, { includeWhen: boolean; readyWhen: boolean; forEach: boolean }> = {
  template: { includeWhen: true, readyWhen: true, forEach: true },
  ref: { includeWhen: true, readyWhen: true, forEach: false },
  watch: { includeWhen: true, readyWhen: true, forEach: false },
  externalRef: { includeWhen: true, readyWhen: true, forEach: true /* rejected with its own rule */ },
  def: { includeWhen: true, readyWhen: true, forEach: true },
  patch: { includeWhen: true, readyWhen: false, forEach: true },
  graph: { includeWhen: false, readyWhen: false, forEach: false },
};

/** Detects which API a document is written in. */
export function sourceKindOf(apiVersion: unknown, kind: unknown): SourceKind | undefined {
  if (apiVersion === KRO_API_VERSION && kind === 'Graph') return 'Graph';
  if (apiVersion === KRO_API_VERSION && kind === 'ResourceGraphDefinition') return 'KroRGD';
  if (apiVersion === 'krop.opendefense.cloud/v1alpha1' && kind === 'ResourceGraphDefinition')
    return 'KropRGD';
  return undefined;
}

/** The flavor of a source kind. */
export function flavorOf(source: SourceKind): Flavor {
  return source === 'Graph' ? GRAPH_FLAVOR : source === 'KroRGD' ? KRO_RGD_FLAVOR : KROP_RGD_FLAVOR;
}
