/**
 * Where `kgraph up`'s Graphs stand: their conditions and progress, the objects they manage, and the report
 * printed once they converged.
 */
import { GRAPH_API_VERSION } from '../../controller/graph/names.ts';
import { kubectlName, kubectlNameIn, kubectlTable, namespaceCell } from '../../diag/objectName.ts';
import { isRecord } from '../../diag/record.ts';
import type { KubeObject } from '../../kube/types.ts';
import { defaultDevDataDir } from '../../localplane/devCluster.ts';
import { CLI } from './options.ts';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

export function conditionsOf(obj: KubeObject | undefined): Condition[] {
  const status = obj?.status;
  if (!isRecord(status) || !Array.isArray(status.conditions)) return [];
  return status.conditions.filter(
    (c): c is Condition => isRecord(c) && typeof c.type === 'string' && typeof c.status === 'string',
  );
}

export interface GraphProgress {
  ready: boolean;
  /** One line: the least healthy condition, e.g. `Ready=False DataPending: …`. */
  summary: string;
}

/** Whether a Graph is Ready for its current generation, and a one-line summary of where it stands. */
export function graphProgress(graph: KubeObject | undefined): GraphProgress {
  if (!graph) return { ready: false, summary: 'not found' };
  const conds = conditionsOf(graph);
  const ready = conds.find((c) => c.type === 'Ready');
  if (!ready) return { ready: false, summary: 'waiting for the controller' };
  const current =
    ready.observedGeneration === undefined || ready.observedGeneration === graph.metadata.generation;
  if (!current) return { ready: false, summary: 'waiting for the controller to observe the latest spec' };
  const text = `Ready=${ready.status}${ready.reason ? ` ${ready.reason}` : ''}${ready.message ? `: ${ready.message}` : ''}`;
  return { ready: ready.status === 'True', summary: text };
}

interface ManagedResource {
  nodeID?: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export function managedResourcesOf(graph: KubeObject | undefined): ManagedResource[] {
  const status = graph?.status;
  if (!isRecord(status) || !Array.isArray(status.managedResources)) return [];
  return status.managedResources.filter(
    (r): r is ManagedResource =>
      isRecord(r) &&
      typeof r.apiVersion === 'string' &&
      typeof r.kind === 'string' &&
      typeof r.name === 'string',
  );
}

function contributionsOf(graph: KubeObject | undefined): ManagedResource[] {
  const status = graph?.status;
  if (!isRecord(status) || !Array.isArray(status.contributions)) return [];
  return status.contributions.filter(
    (r): r is ManagedResource =>
      isRecord(r) &&
      typeof r.apiVersion === 'string' &&
      typeof r.kind === 'string' &&
      typeof r.name === 'string',
  );
}

export function graphKey(o: KubeObject): string {
  return `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;
}

/** An applied document as kubectl names it: `graph.kro.run/showcase -n kgraph-examples` (diag/objectName.ts). */
export const docName = (o: KubeObject): string =>
  kubectlNameIn({
    apiVersion: o.apiVersion,
    kind: o.kind,
    namespace: o.metadata.namespace,
    name: o.metadata.name ?? '',
  });

/** A Graph in progress lines and the report: `graph.kro.run/showcase -n kgraph-examples`. */
export const graphName = (key: string): string => {
  const [namespace, name] = key.split('/') as [string, string];
  return kubectlNameIn({ apiVersion: GRAPH_API_VERSION, kind: 'Graph', namespace, name });
};

/** The report printed once the Graphs converged (or the wait timed out). */
export function formatReport(graphs: readonly KubeObject[], kubeconfig: string, dataDir: string): string {
  const lines: string[] = [];
  const kinds = new Set<string>();
  for (const g of graphs) {
    const p = graphProgress(g);
    lines.push('', `${graphName(graphKey(g))}  ${p.ready ? 'Ready' : 'NOT READY'}`);
    lines.push(
      `  conditions: ${conditionsOf(g)
        .map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`)
        .join(' · ')}`,
    );
    if (!p.ready) lines.push(`  ${p.summary}`);
    const managed = managedResourcesOf(g);
    if (managed.length > 0) {
      lines.push('  resources:');
      for (const r of managed) kinds.add(r.kind.toLowerCase());
      lines.push(
        ...kubectlTable(
          ['namespace', 'name', 'node'],
          managed.map((r) => [namespaceCell(r), kubectlName(r), r.nodeID ?? '?']),
          '    ',
        ),
      );
    }
    const contributions = contributionsOf(g);
    if (contributions.length > 0) {
      lines.push('  patched (fields contributed, object not owned):');
      lines.push(
        ...kubectlTable(
          ['namespace', 'name'],
          contributions.map((r) => [namespaceCell(r), kubectlName(r)]),
          '    ',
        ),
      );
    }
  }
  const defaultDir = dataDir === defaultDevDataDir();
  lines.push(
    '',
    'Explore:',
    `  export KUBECONFIG=${kubeconfig}`,
    '  kubectl get graphs -A',
    ...graphs.map(
      (g) => `  kubectl get graph ${g.metadata.name} -n ${g.metadata.namespace ?? 'default'} -o yaml`,
    ),
  );
  if (kinds.size > 0) lines.push(`  kubectl get ${[...kinds].sort().join(',')} -A -l kro.run/node-id`);
  lines.push(
    '  (examples/README.md has edits to try: flip includeWhen, grow a forEach, label a namespace)',
    '',
    `Stop everything with: ${CLI} down${defaultDir ? '' : ` --data-dir ${dataDir}`}`,
  );
  return `${lines.join('\n')}\n`;
}
