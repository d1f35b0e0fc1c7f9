/**
 * `kgraph ui --render FILE [--state FILE]…`: the page without a cluster. The CLI hands over a
 * function that runs `kgraph render` (compile + simulate); its result is shown as one entry, the
 * state files standing in for the cluster's live objects. The files are watched, so editing the
 * Graph in an editor updates the page (the same server-sent events as in live mode).
 */
import { type FSWatcher, watch } from 'node:fs';
import type { Diagnostic } from '../diag/diagnostic.ts';
import { kubectlName } from '../diag/objectName.ts';
import type { CompiledGraph } from '../graph/model.ts';
import type { SourceFile } from '../graph/yamlTree.ts';
import { identityKey, identityOf, type KubeObject } from '../runtime/observed.ts';
import type { EvaluationResult } from '../runtime/types.ts';
import { layoutSvg } from './layout.ts';
import { type EntrySummary, entryKey } from './model.ts';
import type { UiSource } from './source.ts';
import { buildView } from './view.ts';

/** What one offline render produced (the CLI's RenderDetails). */
export interface OfflineRender {
  object: { apiVersion: string; kind: string; name: string; file: string };
  graph?: CompiledGraph;
  diagnostics: Diagnostic[];
  source?: SourceFile;
  result?: EvaluationResult;
  state: KubeObject[];
}

export interface OfflineOptions {
  /** Runs the render; throws for unusable input (shown on the page). */
  render: () => OfflineRender;
  /** Files whose change triggers a new render. */
  files: readonly string[];
  description: string;
}

function summary(r: OfflineRender): EntrySummary {
  const type = r.graph?.rgd ? 'RGD' : r.object.kind === 'ResourceGraphDefinition' ? 'RGD' : 'Graph';
  const namespace = r.graph?.namespace;
  const base = {
    key: entryKey({ type, name: r.object.name, ...(namespace ? { namespace } : {}) }),
    type,
    name: r.object.name,
    kind: r.object.kind,
    ...(namespace ? { namespace } : {}),
  } as const;
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (!r.result) {
    return {
      ...base,
      ready: 'False',
      reason: 'InvalidGraph',
      message: errors.map((d) => `${d.code}: ${d.message}`).join('; '),
    };
  }
  if (r.result.ready)
    return { ...base, ready: 'True', reason: 'Rendered', message: 'every node ready or excluded' };
  const soft = r.result.firstSoft;
  return {
    ...base,
    ready: 'False',
    reason:
      r.result.errors.length > 0
        ? 'EvaluationFailed'
        : soft?.state === 'pending'
          ? 'DataPending'
          : 'WaitingForReadiness',
    message: r.result.errors[0]?.message ?? (soft ? `node ${soft.node}: ${soft.reason}` : ''),
  };
}

export function offlineSource(opts: OfflineOptions): UiSource {
  const listeners = new Set<() => void>();
  let current: { render?: OfflineRender; error?: string } = {};
  const rerender = (): void => {
    try {
      current = { render: opts.render() };
    } catch (e) {
      current = { error: e instanceof Error ? e.message : String(e) };
    }
    for (const l of listeners) l();
  };
  rerender();
  const watchers: FSWatcher[] = [];
  let debounce: ReturnType<typeof setTimeout> | undefined;
  for (const f of opts.files) {
    try {
      const w = watch(f, () => {
        // Editors write in several steps (truncate, write, rename): render once they are done.
        if (debounce) clearTimeout(debounce);
        debounce = setTimeout(rerender, 50);
      });
      w.unref();
      watchers.push(w);
    } catch {
      // A file that cannot be watched is still rendered; it just does not trigger updates.
    }
  }

  return {
    description: opts.description,
    entries() {
      return current.render ? [summary(current.render)] : [];
    },
    async view(key) {
      const r = current.render;
      if (!r) {
        if (current.error === undefined) return undefined;
        throw new Error(current.error);
      }
      const s = summary(r);
      if (key !== s.key) return undefined;
      const byKey = new Map<string, KubeObject>();
      for (const o of r.state) {
        const id = identityOf(o);
        if (id) byKey.set(identityKey(id), o);
      }
      return buildView({
        key,
        type: s.type,
        title: `${kubectlName(r.object)} (${r.object.file}, offline)`,
        svg: r.graph ? await layoutSvg(r.graph) : '',
        ...(r.graph ? { graph: r.graph } : {}),
        diagnostics: r.diagnostics,
        ...(r.source ? { source: r.source } : {}),
        ...(r.result ? { result: r.result } : {}),
        live: (id) => {
          const obj = byKey.get(identityKey(id));
          return obj ? { state: 'found', obj } : { state: 'missing' };
        },
        conditions: [{ type: 'Ready', status: s.ready, reason: s.reason, message: s.message }],
        note: `offline: rendered by \`kgraph render\` against ${r.state.length} object(s) from --state files; "live" objects are those files, nothing is read from or written to a cluster`,
      });
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      if (debounce) clearTimeout(debounce);
      for (const w of watchers) w.close();
    },
  };
}
