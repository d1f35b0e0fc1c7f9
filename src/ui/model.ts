/**
 * What the `kgraph ui` server sends to the page (JSON over `/api/…` and server-sent events). The
 * page is plain JavaScript, so this file is the one description of the contract; keep it flat and
 * JSON-safe (no BigInt, no Maps).
 */
import type { UiFleet } from './fleetModel.ts';

/** A node's state on the page: the engine's states, plus what only the controller learns (conflict). */
export type UiNodeState =
  /** rendered, observed and every readyWhen holds */
  | 'ready'
  /** rendered, but not yet observed, or a readyWhen does not hold yet */
  | 'waiting'
  /** not rendered: data it reads is missing (or a dependency is pending) */
  | 'pending'
  /** includeWhen is false, or a dependency is excluded */
  | 'excluded'
  /** an expression failed, or the controller's apply of this node's object failed */
  | 'failed'
  /** the controller's apply met a field owned by another Graph (FieldManagerConflict) */
  | 'conflict'
  /** nothing to evaluate: an RGD without a chosen instance, or a graph that is not accepted */
  | 'unknown';

export type EntryType = 'Graph' | 'RGD' | 'Instance';

export interface UiCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** One row of the list: a Graph, an RGD or an RGD instance. */
export interface EntrySummary {
  /** Stable key (`entryKey`), used in the URL and to subscribe. */
  key: string;
  type: EntryType;
  namespace?: string;
  name: string;
  /** Graph, ResourceGraphDefinition or the instance's kind. */
  kind: string;
  ready: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** Instances: the RGD that defines the kind. */
  rgd?: string;
}

export interface UiLocation {
  file: string;
  line: number;
  column: number;
}

/** A compiler diagnostic, with the same text `kgraph validate` prints (caret line included). */
export interface UiDiagnostic {
  severity: string;
  code: string;
  message: string;
  node?: string;
  path?: string;
  location?: UiLocation;
  text: string;
}

/** Why a node is pending or failed: the expression, where it is written, the missing reference. */
export interface UiIssue {
  code: string;
  message: string;
  expression?: string;
  field?: string;
  reference?: string;
  location?: UiLocation;
  /** The `file:line:col - …` block with the source line and a caret (as the CLI prints it). */
  text?: string;
}

/** One leaf of the rendered object compared with the live object. */
export interface DiffRow {
  path: string;
  rendered: string;
  live: string | null;
  change: 'same' | 'changed' | 'missing';
}

export type LiveState =
  /** the object exists in the cluster */
  | 'found'
  /** rendered but not in the cluster (yet) */
  | 'missing'
  /** the user's credentials may not list/watch this kind here */
  | 'unreadable'
  /** nothing to look up (a def value, a node that rendered nothing) */
  | 'none';

export interface UiObject {
  /** `Kind namespace/name`, when the object has an identity. */
  identity?: string;
  /** YAML of what the engine rendered (template, patch) or computed (def). */
  rendered: string;
  /** YAML of the object in the cluster (managedFields left out). */
  live?: string;
  liveState: LiveState;
  diff: DiffRow[];
  /** The live object's `status.conditions`. */
  conditions: UiCondition[];
  ready?: boolean;
  /** Why the item is not ready. */
  reason?: string;
}

export interface UiNode {
  /** Dotted path (`backend.deployment`): the node's name in the drawing. */
  path: string;
  id: string;
  kind: string;
  state: UiNodeState;
  reason?: string;
  code?: string;
  collection: boolean;
  /** Items rendered (collections) or objects rendered (1 or 0). */
  count: number;
  readyCount: number;
  issue?: UiIssue;
  objects: UiObject[];
  /** Where the node is declared. */
  location?: UiLocation;
}

/** Everything the page shows for the selected entry. */
export interface UiView {
  key: string;
  type: EntryType;
  title: string;
  /** The DAG as `kgraph graph -o svg` draws it; the page colours the nodes. */
  svg: string;
  conditions: UiCondition[];
  diagnostics: UiDiagnostic[];
  nodes: UiNode[];
  /** RGD instances: the status the engine projects. */
  status?: string;
  /** A sentence for the page when something limits the view (e.g. an RGD without instances). */
  note?: string;
  /** RGDs: the instances by revision and the GraphRollout's progress (fleetModel.ts). */
  fleet?: UiFleet;
}

/** The key of an entry; the page treats it as opaque. */
export function entryKey(e: {
  type: EntryType;
  namespace?: string | undefined;
  name: string;
  apiVersion?: string;
  kind?: string;
}): string {
  if (e.type === 'Graph') return `graph:${e.namespace ?? ''}/${e.name}`;
  if (e.type === 'RGD') return `rgd:${e.name}`;
  return `instance:${e.apiVersion ?? ''}:${e.kind ?? ''}:${e.namespace ?? ''}/${e.name}`;
}

export interface ParsedKey {
  type: EntryType;
  namespace?: string;
  name: string;
  apiVersion?: string;
  kind?: string;
}

export function parseEntryKey(key: string): ParsedKey | undefined {
  const nsName = (s: string): { namespace?: string; name: string } | undefined => {
    const i = s.lastIndexOf('/');
    if (i < 0) return undefined;
    const namespace = s.slice(0, i);
    const name = s.slice(i + 1);
    if (name === '') return undefined;
    return namespace === '' ? { name } : { namespace, name };
  };
  if (key.startsWith('graph:')) {
    const p = nsName(key.slice(6));
    return p ? { type: 'Graph', ...p } : undefined;
  }
  if (key.startsWith('rgd:')) return key.length > 4 ? { type: 'RGD', name: key.slice(4) } : undefined;
  const m = /^instance:([^:]+):([^:]+):(.*)$/.exec(key);
  if (!m) return undefined;
  const p = nsName(m[3]!);
  return p ? { type: 'Instance', apiVersion: m[1]!, kind: m[2]!, ...p } : undefined;
}
