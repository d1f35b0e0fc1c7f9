/**
 * `kgraph get <kind> [name]`: RGD instances with their state and conditions, and under each instance its
 * resource nodes — state as the controller's engine sees it now — with the children they own
 * (instance → children). Read-only.
 */
import type { Command } from 'commander';
import { type InstanceView, inspectInstance } from '../../controller/rgd/inspect.ts';
import { RGD_API_VERSION, RGD_PLURAL } from '../../controller/rgd/names.ts';
import { KgraphError } from '../../diag/diagnostic.ts';
import { kubectlNameIn } from '../../diag/objectName.ts';
import { connect } from '../../kube/connect.ts';
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { fetchHistory, formatHistory } from '../history.ts';

/** One instance of `kgraph get -o json` (schema: docs/cli/get.md). */
export function toJsonView(v: InstanceView): unknown {
  return {
    instance: {
      namespace: v.instance.metadata.namespace,
      name: v.instance.metadata.name,
      status: v.instance.status,
    },
    nodes: v.nodes,
    orphans: v.orphans.map((c) => ({
      apiVersion: c.apiVersion,
      kind: c.kind,
      namespace: c.namespace,
      name: c.name,
    })),
  };
}

interface GetOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  allNamespaces?: boolean;
  output: string;
  history?: boolean;
  controller: string;
}

interface Schema {
  kind: string;
  group: string;
  apiVersion: string;
  scope: string;
}

function schemaOf(rgd: KubeObject): Schema | undefined {
  const s = (rgd.spec as { schema?: Record<string, unknown> } | undefined)?.schema;
  if (!s || typeof s.kind !== 'string' || typeof s.apiVersion !== 'string') return undefined;
  return {
    kind: s.kind,
    group: typeof s.group === 'string' ? s.group : 'kro.run',
    apiVersion: s.apiVersion,
    scope: s.scope === 'Cluster' ? 'Cluster' : 'Namespaced',
  };
}

/** The RGD whose kind is `type` (kind, lower-case kind, or `kind.group`). */
async function findRgd(client: RestClient, type: string): Promise<{ rgd: KubeObject; schema: Schema }> {
  const rgds = (await client.listAll({ apiVersion: RGD_API_VERSION, plural: RGD_PLURAL })).items;
  const want = type.toLowerCase();
  for (const rgd of rgds) {
    const s = schemaOf(rgd);
    if (!s) continue;
    const k = s.kind.toLowerCase();
    if (want === k || want === `${k}.${s.group}` || want === `${k}s` || want === `${k}es`)
      return { rgd, schema: s };
  }
  const kinds = rgds.flatMap((r) => schemaOf(r)?.kind ?? []).join(', ') || 'none';
  throw new KgraphError('KG6090', `no ResourceGraphDefinition serves "${type}" (kinds served: ${kinds})`);
}

function conditionSummary(o: KubeObject): string {
  const cs = (o.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return cs.map((c) => `${c.type}=${c.status}`).join(' ');
}

export function formatInstance(v: InstanceView): string {
  const o = v.instance;
  const status = (o.status ?? {}) as Record<string, unknown>;
  // The instance with `-n ns`; its children in that namespace without (as `kubectl -n ns get` prints them).
  const ns = o.metadata.namespace;
  const name = (c: { apiVersion: string; kind: string; namespace?: string; name: string }) =>
    kubectlNameIn(c, ns);
  const lines = [
    `${kubectlNameIn({ apiVersion: o.apiVersion, kind: o.kind, namespace: ns, name: o.metadata.name ?? '' })}  ${String(status.state ?? '(no status)')}  ${conditionSummary(o)}`,
  ];
  const fields = Object.entries(status).filter(([k]) => k !== 'conditions' && k !== 'state');
  if (fields.length > 0)
    lines.push(`  status: ${fields.map(([k, x]) => `${k}=${JSON.stringify(x)}`).join(' ')}`);
  const ready = (
    o.status as { conditions?: { type: string; status: string; message?: string }[] } | undefined
  )?.conditions?.find((c) => c.type === 'Ready');
  if (ready && ready.status !== 'True' && ready.message) lines.push(`  reason: ${ready.message}`);
  v.nodes.forEach((n, i) => {
    const last = i === v.nodes.length - 1 && v.orphans.length === 0;
    lines.push(`  ${last ? '└─' : '├─'} ${n.id}  ${n.state}${n.reason ? `  (${n.reason})` : ''}`);
    for (const c of n.children) {
      lines.push(`  ${last ? ' ' : '│'}    ${name(c)}${c.deleting ? '  deleting' : ''}`);
    }
  });
  for (const c of v.orphans) lines.push(`  └─ (no node)  ${name(c)}  to be pruned`);
  return lines.join('\n');
}

export function registerGetCommand(program: Command): void {
  program
    .command('get')
    .description('show RGD instances and, under each, its resources with their states (instance → children)')
    .argument(
      '<kind>',
      'the instance kind an RGD serves (e.g. WebApplication), or `shards` (sharded replicas; -n: their namespace)',
    )
    .argument('[name]', 'one instance')
    .option('--kubeconfig <path>', 'kubeconfig (default: KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context')
    .option('-n, --namespace <ns>', 'namespace of the instances (default: default)')
    .option('-A, --all-namespaces', 'instances of every namespace')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('--history', "the instance's last reconcile passes, as the controller remembers them")
    .option(
      '--controller <addr>',
      "with --history: the controller's metrics address, which serves its history",
      process.env.KGRAPH_CONTROLLER ?? 'http://127.0.0.1:8080',
    )
    .action(async (kind: string, name: string | undefined, opts: GetOptions) => {
      const client = connect(opts.kubeconfig, opts.context ? { context: opts.context } : {});
      try {
        if (kind === 'shards' && !name) {
          // The sharded replicas of a controller (-n: the namespace of their Leases and map).
          const { formatShards, shardsView } = await import('../shards.ts');
          const v = await shardsView(client, opts.namespace ?? 'default');
          process.stdout.write(
            opts.output === 'json' ? `${JSON.stringify(v, null, 2)}\n` : `${formatShards(v)}\n`,
          );
          return;
        }
        const { rgd, schema } = await findRgd(client, kind);
        const apiVersion = `${schema.group}/${schema.apiVersion}`;
        const ns =
          schema.scope === 'Cluster' || opts.allNamespaces ? undefined : (opts.namespace ?? 'default');
        const target = { apiVersion, kind: schema.kind, ...(ns ? { namespace: ns } : {}) };
        if (opts.history) {
          if (!name) throw new KgraphError('KG6090', '--history needs an instance name');
          const q = { controller: opts.controller, apiVersion, kind: schema.kind, namespace: ns ?? '', name };
          const passes = await fetchHistory(q);
          process.stdout.write(
            opts.output === 'json'
              ? `${JSON.stringify(passes, null, 2)}\n`
              : formatHistory(`${schema.kind} ${ns ? `${ns}/` : ''}${name}`, passes),
          );
          return;
        }
        const items = name
          ? [await client.get({ ...target, name })]
          : (await client.listAll(target)).items.map((o) => ({ ...o, apiVersion, kind: schema.kind }));
        const views: InstanceView[] = [];
        for (const o of items) views.push(await inspectInstance(client, rgd, o));
        if (opts.output === 'json') {
          process.stdout.write(`${JSON.stringify(views.map(toJsonView), null, 2)}\n`);
        } else {
          process.stdout.write(
            views.length === 0
              ? `no ${schema.kind} instances\n`
              : `${views.map(formatInstance).join('\n\n')}\n`,
          );
        }
      } finally {
        client.close();
      }
    });
}
