/**
 * `kgraph validate <files|dirs>... [--crd FILE]... [--kubeconfig [PATH]] [-o text|json]`:
 * compiles every Graph / ResourceGraphDefinition document and reports diagnostics.
 * Exit code 0 when every object is accepted (and no file failed to parse), 1 otherwise.
 */
import type { Command } from 'commander';
import { formatTextReport, toJsonReport } from '../../graph/format.ts';
import { type ValidateResult, validatePaths, validatePathsLive } from '../../graph/validate.ts';
import type { KubeLive } from '../../kube/liveSchema.ts';
import { inputFiles, withStdin } from '../inputs.ts';

export interface ValidateCliOptions {
  crd: string[];
  kubeconfig?: string | boolean;
  output: string;
  color?: boolean;
  kroCompat?: boolean;
  /** `-f/--filename` (repeatable), as kubectl; `-` is standard input. */
  filename?: string[];
}

export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description(
      'validate Graphs and ResourceGraphDefinitions (kro and krop): structure, references, cycles, types',
    )
    .argument(
      '[paths...]',
      'YAML files or directories (searched recursively for *.yaml / *.yml); - reads standard input',
    )
    .option(
      '-f, --filename <path>',
      'a file or directory to validate, - for standard input (repeatable)',
      collect,
      [],
    )
    .option('--crd <file>', 'CRD file used as a schema source (repeatable)', collect, [])
    .option('--kubeconfig [path]', 'read schemas from a live cluster (/openapi/v3)')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('--no-color', 'disable colours in text output')
    .option(
      '--no-kro-compat',
      "accept kgraph's extensions that kro rejects: CEL overloads, reading CRD fields that have no type (the manifest then fails in kro)",
    )
    .action(async (paths: string[], opts: ValidateCliOptions) => {
      const out = await runValidate(paths, opts);
      process.stdout.write(out.stdout);
      process.stderr.write(out.stderr);
      process.exitCode = out.exitCode;
    });
}

/** What one `kgraph validate` call prints and its exit code (a value, so tests run it in-process). */
export interface ValidateOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export async function runValidate(args: string[], opts: ValidateCliOptions): Promise<ValidateOutput> {
  if (opts.output !== 'text' && opts.output !== 'json')
    return { stdout: '', stderr: `kgraph: unknown output format '${opts.output}'\n`, exitCode: 1 };
  const { paths, inline } = withStdin(inputFiles(args, opts.filename));
  let result: ValidateResult;
  if (opts.kubeconfig !== undefined) {
    const live = await liveSource(typeof opts.kubeconfig === 'string' ? opts.kubeconfig : undefined);
    result = await validatePathsLive(paths, live, {
      inline,
      crdFiles: opts.crd,
      kroCompat: opts.kroCompat !== false,
    });
  } else {
    result = validatePaths(paths, { inline, crdFiles: opts.crd, kroCompat: opts.kroCompat !== false });
  }
  let stdout: string;
  let stderr = '';
  if (opts.output === 'json') {
    const report = toJsonReport(result.objects, result.fileDiagnostics);
    stdout = `${JSON.stringify(report, null, 2)}\n`;
  } else {
    const color = opts.color !== false && !process.env.NO_COLOR && process.stdout.isTTY === true;
    stdout = formatTextReport(result.objects, result.fileDiagnostics, result.sources, { color });
  }
  const fileErrors = result.fileDiagnostics.some((d) => d.severity === 'error');
  const ok = !fileErrors && result.objects.length > 0 && result.objects.every((o) => o.accepted);
  if (result.objects.length === 0 && !fileErrors)
    stderr = 'kgraph validate: no Graph or ResourceGraphDefinition found\n';
  return { stdout, stderr, exitCode: ok ? 0 : 1 };
}

/**
 * Schemas from a live cluster; `path` absent = the default kubeconfig ($KUBECONFIG or ~/.kube/config).
 * The kube client is imported only here: an offline validate never loads it (start-up time).
 */
async function liveSource(path: string | undefined): Promise<KubeLive> {
  const [{ loadKubeConfig }, { RestClient }, { kubeLiveFetcher }] = await Promise.all([
    import('../../kube/connect.ts'),
    import('../../kube/index.ts'),
    import('../../kube/liveSchema.ts'),
  ]);
  const client = new RestClient(loadKubeConfig(path));
  return kubeLiveFetcher(client, client.server);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
