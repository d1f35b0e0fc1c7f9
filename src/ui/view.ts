/**
 * Builds what the page shows for one Graph, RGD or instance from the compiler's output, one engine
 * evaluation and a lookup of live objects. Pure: the live and offline sources supply the inputs.
 */
import { stringify } from 'yaml';
import type { Diagnostic } from '../diag/diagnostic.ts';
import { isRecord } from '../diag/record.ts';
import { formatDiagnostic } from '../graph/format.ts';
import type { CompiledFrame, CompiledGraph } from '../graph/model.ts';
import type { SourceFile } from '../graph/yamlTree.ts';
import { identityOf, type ObjectIdentity } from '../runtime/observed.ts';
import type { EvaluationResult, NodeResult } from '../runtime/types.ts';
import { describeIssue, findNode, uiLocation } from './issueLocation.ts';
import { jsonSafe } from './jsonSafe.ts';
import type {
  EntryType,
  LiveState,
  UiCondition,
  UiDiagnostic,
  UiNode,
  UiNodeState,
  UiObject,
  UiView,
} from './model.ts';
import { conditionsOf, controllerVerdict, describeIdentity, engineState } from './nodeStates.ts';
import { diffObject } from './objectDiff.ts';

export type LiveLookup = (id: ObjectIdentity) => { state: LiveState; obj?: Record<string, unknown> };

export interface ViewInput {
  key: string;
  type: EntryType;
  title: string;
  svg: string;
  graph?: CompiledGraph;
  diagnostics: readonly Diagnostic[];
  source?: SourceFile;
  /** Absent when nothing was evaluated (not accepted, or an RGD without an instance). */
  result?: EvaluationResult;
  live: LiveLookup;
  /** The Graph's / instance's own conditions (the controller's verdicts are read from them). */
  conditions: UiCondition[];
  note?: string;
}

export function yamlText(v: unknown): string {
  return stringify(jsonSafe(v), { aliasDuplicateObjects: false, lineWidth: 0 });
}

/** The live object as shown: without managedFields (noise for a reader; `kubectl get` hides them too). */
function liveText(obj: Record<string, unknown>): string {
  const meta = isRecord(obj.metadata) ? { ...obj.metadata } : undefined;
  if (meta) delete meta.managedFields;
  return yamlText(meta ? { ...obj, metadata: meta } : obj);
}

function uiDiagnostic(d: Diagnostic, source: SourceFile | undefined): UiDiagnostic {
  const out: UiDiagnostic = {
    severity: d.severity,
    code: d.code,
    message: d.message,
    text: formatDiagnostic(d, source),
  };
  if (d.node !== undefined) out.node = d.node;
  if (d.path !== undefined) out.path = d.path;
  const loc = uiLocation(d.location);
  if (loc) out.location = loc;
  return out;
}

function objectView(
  rendered: unknown,
  id: ObjectIdentity | undefined,
  input: ViewInput,
  item: NodeResult['items'][number] | undefined,
): UiObject {
  const o: UiObject = {
    rendered: rendered === undefined ? '' : yamlText(rendered),
    liveState: 'none',
    diff: [],
    conditions: [],
  };
  if (id) {
    o.identity = describeIdentity(id);
    const live = input.live(id);
    o.liveState = live.state;
    if (live.obj) {
      o.live = liveText(live.obj);
      o.conditions = conditionsOf(live.obj);
      if (rendered !== undefined) o.diff = diffObject(rendered, live.obj);
    }
  }
  if (item) {
    o.ready = item.ready;
    if (item.reason !== undefined) o.reason = item.reason;
  }
  return o;
}

function nodeView(graph: CompiledGraph, n: NodeResult, input: ViewInput): UiNode {
  let state: UiNodeState = engineState(n.state);
  let reason = n.reason;
  const objects: UiObject[] = [];
  if (n.objects.length > 0) {
    n.objects.forEach((r, i) => {
      const value = r.value;
      const id = n.kind !== 'def' && isRecord(value) ? identityOf(value) : undefined;
      objects.push(objectView(value, id, input, n.items[r.index ?? i]));
    });
  } else {
    // A ref renders nothing: its value is what it found; show that.
    for (const item of n.items)
      if (item.identity) objects.push(objectView(undefined, item.identity, input, item));
  }
  for (const r of n.objects) {
    const id = isRecord(r.value) && n.kind !== 'def' ? identityOf(r.value) : undefined;
    const verdict = id ? controllerVerdict(input.conditions, id) : undefined;
    if (verdict && state !== 'failed') {
      state = verdict.state;
      reason = verdict.message;
    }
  }
  const out: UiNode = {
    path: n.path,
    id: n.id,
    kind: n.kind,
    state,
    collection: n.collection,
    count: Math.max(n.objects.length, n.items.length),
    readyCount: n.items.filter((i) => i.ready).length,
    objects,
  };
  if (reason !== undefined) out.reason = reason;
  if (n.code !== undefined) out.code = n.code;
  const issue = n.error ?? n.pending;
  if (issue) out.issue = describeIssue(graph, issue, n.error ? 'error' : 'info', input.source);
  const loc = uiLocation(findNode(graph, n.path)?.location);
  if (loc) out.location = loc;
  return out;
}

/** Nodes of a graph that was not evaluated: the drawing's nodes, state unknown. */
function unevaluated(graph: CompiledGraph): UiNode[] {
  const out: UiNode[] = [];
  const visit = (f: CompiledFrame): void => {
    for (const n of f.nodes) {
      const node: UiNode = {
        path: n.path,
        id: n.id,
        kind: n.kind,
        state: 'unknown',
        collection: n.forEach.length > 0,
        count: 0,
        readyCount: 0,
        objects: [],
      };
      const loc = uiLocation(n.location);
      if (loc) node.location = loc;
      out.push(node);
      if (n.children) visit(n.children);
    }
  };
  visit(graph.root);
  return out;
}

export function buildView(input: ViewInput): UiView {
  const { graph, result } = input;
  const nodes = graph
    ? result
      ? result.nodes.map((n) => nodeView(graph, n, input))
      : unevaluated(graph)
    : [];
  const view: UiView = {
    key: input.key,
    type: input.type,
    title: input.title,
    svg: input.svg,
    conditions: input.conditions,
    diagnostics: input.diagnostics.map((d) => uiDiagnostic(d, input.source)),
    nodes,
  };
  if (result?.status !== undefined) view.status = yamlText(result.status);
  if (input.note !== undefined) view.note = input.note;
  return view;
}
