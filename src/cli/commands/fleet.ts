/**
 * `kgraph fleet diff -f NEW.yaml | --rgd NAME --from N [--to M] [-n NS | -A] [-l SELECTOR]
 * [--server-side] [-o text|json]`: what an RGD edit would do to every live instance before it is applied
 * (design/rgd.md §19.9). Exit codes as `kubectl diff`: 0 no differences, 1 differences, 2 an error.
 */
import type { Command } from 'commander';
import { KgraphError } from '../../diag/diagnostic.ts';
import { explainClusterError } from '../clusterErrors.ts';
import { withStdin } from '../inputs.ts';

/** `-f -` reads the RGD from standard input, as `kubectl diff -f -`. */
function fileSource(file: string): { file: string; inline: ReadonlyMap<string, string> } {
  const { paths, inline } = withStdin([file]);
  return { file: paths[0] ?? file, inline };
}

interface FleetDiffCliOptions {
  filename?: string;
  rgd?: string;
  from?: string;
  to?: string;
  namespace?: string;
  allNamespaces?: boolean;
  selector?: string;
  serverSide?: boolean;
  output: string;
  showObjects?: boolean;
  kubeconfig?: string;
  context?: string;
}

function revision(option: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(v))
    throw new KgraphError('KG6123', `${option} ${v}: a revision number (1, 2, …)`);
  return Number(v);
}

export function registerFleetCommand(program: Command): void {
  const fleet = program.command('fleet').description('look at every instance of an RGD at once');
  fleet
    .command('diff')
    .description(
      'what an RGD edit would change, add, prune or leave waiting in every live instance, before it is applied',
    )
    .option(
      '-f, --filename <file>',
      'the edited RGD (compared with the cluster’s RGD of its name; - reads stdin)',
    )
    .option('--rgd <name>', 'compare two GraphRevisions of this RGD (with --from)')
    .option('--from <N>', 'the revision to compare from')
    .option('--to <M>', 'the revision to compare to (default: the RGD’s current spec)')
    .option('-n, --namespace <ns>', 'instances of this namespace (default: default)')
    .option('-A, --all-namespaces', 'instances of every namespace')
    .option('-l, --selector <selector>', 'only instances with these labels')
    .option('--server-side', 'also dry-run apply each object to add or change (admission, defaulting)')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('--show-objects', 'with -o json: include the objects that would be applied')
    .option('--kubeconfig <path>', 'kubeconfig (default: KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context')
    .action(async (opts: FleetDiffCliOptions) => {
      process.exitCode = await fleetDiffCommand(opts);
    });
}

/** The command as a function: prints the report and returns the exit code (2 on any refusal). */
export async function fleetDiffCommand(opts: FleetDiffCliOptions): Promise<number> {
  const fail = (code: string, message: string): number => {
    process.stderr.write(`kgraph: ${code}: ${message}\n`);
    return 2;
  };
  if (opts.output !== 'text' && opts.output !== 'json')
    return fail('KG6123', `unknown output format "${opts.output}" (use text or json)`);
  if ((opts.filename === undefined) === (opts.rgd === undefined))
    return fail('KG6123', 'say what to compare: -f NEW.yaml, or --rgd NAME --from N [--to M]');
  const [{ connect }, { runFleetDiff }, { formatReport, reportJson }] = await Promise.all([
    import('../../kube/connect.ts'),
    import('../../fleet/run.ts'),
    import('../../fleet/report.ts'),
  ]);
  let client: ReturnType<typeof connect> | undefined;
  try {
    const from = revision('--from', opts.from);
    const to = revision('--to', opts.to);
    if (opts.rgd !== undefined && from === undefined) return fail('KG6123', '--rgd needs --from N');
    if (opts.rgd === undefined && (from !== undefined || to !== undefined))
      return fail(
        'KG6123',
        '--from and --to choose revisions of --rgd NAME; -f compares the file with the cluster',
      );
    client = connect(opts.kubeconfig, opts.context ? { context: opts.context } : {});
    const run = await runFleetDiff(
      client,
      opts.filename !== undefined
        ? fileSource(opts.filename)
        : { rgd: opts.rgd ?? '', from: from ?? 0, ...(to !== undefined ? { to } : {}) },
      {
        ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
        ...(opts.allNamespaces ? { all: true } : {}),
        ...(opts.selector !== undefined ? { selector: opts.selector } : {}),
        ...(opts.serverSide ? { serverSide: true } : {}),
      },
    );
    process.stdout.write(
      opts.output === 'json'
        ? `${JSON.stringify(reportJson(run.report, opts.showObjects === true), bigints, 2)}\n`
        : formatReport(run.report),
    );
    return run.exitCode;
  } catch (e) {
    if (e instanceof KgraphError) return fail(e.code, e.message);
    const cluster = explainClusterError(e);
    if (cluster) return fail(cluster.code, cluster.message);
    return fail('KG6123', e instanceof Error ? e.message : String(e));
  } finally {
    client?.close();
  }
}

function bigints(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? Number(v) : v;
}
