/**
 * `kgraph lsp [--stdio] [--crd FILE]... [--kubeconfig [PATH]] [--context NAME]`: the language server for
 * kro YAML (Graphs, RGDs, krop blueprints) over standard input and output. The server and the kube
 * client are imported when the command runs, never by the command table.
 */
import type { Command } from 'commander';

export interface LspCliOptions {
  stdio?: boolean;
  crd: string[];
  kubeconfig?: string | boolean;
  context?: string;
  refresh: string;
  debounce: string;
  kroCompat?: boolean;
}

export function registerLspCommand(program: Command): void {
  program
    .command('lsp')
    .description('language server for Graphs and ResourceGraphDefinitions (diagnostics, completion, hover…)')
    .option('--stdio', 'talk LSP over standard input and output (the default and only transport)')
    .option('--crd <file>', 'CRD file used as a schema source (repeatable)', collect, [])
    .option('--kubeconfig [path]', "also read schemas from a live cluster's /openapi/v3")
    .option('--context <name>', 'the kubeconfig context to use')
    .option('--refresh <seconds>', 're-read the live schemas this often (0: never)', '30')
    .option('--debounce <ms>', 'quiet time after an edit before diagnostics are recomputed', '150')
    .option('--no-kro-compat', "accept kgraph's extensions that kro rejects")
    .action(async (opts: LspCliOptions) => {
      const [{ startLanguageServer }] = await Promise.all([import('../../lsp/server.ts')]);
      const live =
        opts.kubeconfig !== undefined || opts.context !== undefined
          ? await liveSchemas(typeof opts.kubeconfig === 'string' ? opts.kubeconfig : undefined, opts.context)
          : undefined;
      startLanguageServer({
        input: process.stdin,
        output: process.stdout,
        crdFiles: opts.crd,
        ...(live ? { live } : {}),
        liveRefreshMs: Math.max(0, Number(opts.refresh) || 0) * 1000,
        kroCompat: opts.kroCompat !== false,
        debounceMs: Math.max(0, Number(opts.debounce) || 0),
      });
    });
}

/** The live cluster's schemas; the kube client is loaded only when a kubeconfig is asked for. */
async function liveSchemas(path: string | undefined, context: string | undefined) {
  const [{ loadKubeConfig }, { RestClient }, { kubeLiveFetcher }] = await Promise.all([
    import('../../kube/connect.ts'),
    import('../../kube/index.ts'),
    import('../../kube/liveSchema.ts'),
  ]);
  const client = new RestClient(loadKubeConfig(path, context));
  return kubeLiveFetcher(client, client.server);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
