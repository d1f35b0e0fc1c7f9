import { statSync } from 'node:fs';
import { extname } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import YAML from 'yaml';
import {
  checkDeployName,
  Deployer,
  formatPlan,
  keyName,
  type PruneDecision,
  planDeploy,
  readManifests,
  withProgress,
} from '../../deploy/index.ts';
import { KgraphError } from '../../diag/diagnostic.ts';
import { loadKubeConfig } from '../../kube/connect.ts';
import { RestClient } from '../../kube/rest.ts';
import type { Manifest } from '../../sdk/index.ts';
import { parseDuration } from '../duration.ts';
import { diagnosticLine, requireInput } from '../inputs.ts';
import { runSynth } from './synth.ts';

interface DeployCliOptions {
  cluster?: string;
  kubeconfig?: string;
  context?: string;
  name?: string;
  namespace?: string;
  inventoryNamespace?: string;
  yes?: boolean;
  fieldManager: string;
  force?: boolean;
  dryRun?: boolean;
  wait: boolean;
  prune: boolean;
  pruneProtected?: boolean;
  allowEmpty?: boolean;
  timeout: string;
  output: 'text' | 'json';
}

/** Checks the options that need no cluster, before anything is synthesized or applied. */
export function checkDeployOptions(opts: Pick<DeployCliOptions, 'output' | 'timeout'>): number {
  if (opts.output !== 'text' && opts.output !== 'json') {
    throw new Error(`unknown output format "${opts.output}" (use text or json)`);
  }
  return parseDuration(opts.timeout, '--timeout');
}

/**
 * kubectl's rule for manifests: a namespaced object without metadata.namespace goes to the
 * kubeconfig context's namespace ("default" when it has none). Scope comes from discovery, or from a
 * CRD in the same manifests for a kind that is not served yet; an unknown kind is left as it is.
 */
export async function defaultNamespaces(
  manifests: readonly Manifest[],
  resolveKind: (apiVersion: string, kind: string) => Promise<{ namespaced: boolean }>,
  namespace: string,
): Promise<Manifest[]> {
  const crdScope = (apiVersion: string, kind: string): boolean | undefined => {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const crd = manifests.find((m) => {
      const spec = m.spec as { group?: unknown; names?: { kind?: unknown } } | undefined;
      return m.kind === 'CustomResourceDefinition' && spec?.group === group && spec.names?.kind === kind;
    });
    return crd ? (crd.spec as { scope?: unknown }).scope === 'Namespaced' : undefined;
  };
  const out: Manifest[] = [];
  for (const m of manifests) {
    if (m.metadata.namespace !== undefined) {
      out.push(m);
      continue;
    }
    let namespaced: boolean | undefined;
    try {
      namespaced = (await resolveKind(m.apiVersion, m.kind)).namespaced;
    } catch {
      namespaced = crdScope(m.apiVersion, m.kind);
    }
    out.push(namespaced === true ? { ...m, metadata: { ...m.metadata, namespace } } : m);
  }
  return out;
}

interface Loaded {
  manifests: Manifest[];
  /** The release name the input declares: its package's (or cluster definition's) name, or its instance label. */
  declaredName?: string;
}

async function manifestsFrom(input: string, cluster: string | undefined): Promise<Loaded> {
  const ext = extname(input);
  requireInput(input, undefined, true);
  if (!statSync(input).isDirectory() && ['.ts', '.mts', '.js', '.mjs'].includes(ext)) {
    const synthesized = await runSynth(input, cluster ? { cluster } : {});
    for (const d of synthesized.diagnostics) process.stderr.write(diagnosticLine(d));
    return {
      manifests: synthesized.documents.map((doc) => YAML.parse(doc) as Manifest),
      ...(synthesized.releaseName ? { declaredName: synthesized.releaseName } : {}),
    };
  }
  const { manifests, warnings } = readManifests(input);
  for (const w of warnings) process.stderr.write(diagnosticLine(w));
  const name = instanceLabelOf(manifests);
  return { manifests, ...(name ? { declaredName: name } : {}) };
}

/**
 * The one instance label (`app.kubernetes.io/instance`, or helm-style `release`) the
 * manifests carry (synth stamps it on everything but the instance's Namespace).
 */
export function instanceLabelOf(manifests: readonly Manifest[]): string | undefined {
  const names = new Set<string>();
  for (const m of manifests) {
    const labels = (m.metadata.labels ?? {}) as Record<string, unknown>;
    const v = labels['app.kubernetes.io/instance'] ?? labels.release;
    if (typeof v === 'string') names.add(v);
  }
  return names.size === 1 ? [...names][0] : undefined;
}

/**
 * The release name (helm's and kapp's rule: explicit, never a file name): `--name`, else
 * the name the input declares. Two packages deployed under their own names can never
 * prune each other's objects.
 */
export function deployNameFor(
  input: string,
  given: string | undefined,
  declared: string | undefined,
): string {
  const name = given ?? declared;
  if (name === undefined) {
    throw new KgraphError(
      'KG7105',
      `${input} declares no single package name (no definePackage name, or no common app.kubernetes.io/instance label); pass --name <release>`,
    );
  }
  return checkDeployName(name);
}

/** Asks on the terminal, or refuses without one unless --yes: a first prune deletes for real. */
function pruneConfirmation(
  name: string,
  yes: boolean,
): (prunes: readonly PruneDecision[]) => Promise<boolean> {
  return async (prunes) => {
    const list = prunes.map((p) => `  ${keyName(p.key)}`).join('\n');
    process.stderr.write(
      `deploy ${name} would prune ${prunes.length} object(s) recorded by its inventory and absent from this build:\n${list}\n`,
    );
    if (yes) return true;
    if (!process.stdin.isTTY || !process.stderr.isTTY) {
      process.stderr.write(
        `kgraph: KG7106: this is the first prune under the name ${name}; check the list and run again with --yes (nothing was applied)\n`,
      );
      return false;
    }
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question('delete them? [y/N] ');
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  };
}

export function registerDeployCommand(program: Command): void {
  program
    .command('deploy')
    .description(
      'apply a package (package.ts) or a manifests directory in dependency order, wait for readiness, prune',
    )
    .argument('<input>', 'an SDK package (.ts) or a file/directory of synthesized manifests')
    .option('--cluster <file>', 'cluster definition for a package (as for synth)')
    .option('--kubeconfig <path>', 'kubeconfig (default: KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context')
    .option(
      '--name <release>',
      "release name, naming the inventory kix-inventory-<release> (default: the package's definePackage name, or the manifests' common app.kubernetes.io/instance label)",
    )
    .option(
      '-n, --namespace <ns>',
      "namespace for namespaced objects that name none, and for the inventory (default: the context's, else default)",
    )
    .option('--inventory-namespace <ns>', 'namespace of the inventory ConfigMap (default: --namespace)')
    .option('-y, --yes', 'confirm the first prune under a name without asking')
    .option('--field-manager <name>', 'server-side apply field manager', 'kix')
    .option('--force', 'take over fields owned by other managers')
    .option('--dry-run', 'print the plan (server-side dry run) and write nothing')
    .option('--no-wait', 'do not wait for readiness; dependents start once their dependencies are applied')
    .option('--no-prune', 'keep objects that the previous deploy applied and this build lacks')
    .option('--prune-protected', 'also prune CRDs, Namespaces and objects marked kix.run/holds-data')
    .option('--allow-empty', 'deploy an input with no objects (which prunes everything the inventory holds)')
    .option('--timeout <duration>', 'per-object readiness timeout', '10m')
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (input: string, opts: DeployCliOptions) => {
      const timeoutMs = checkDeployOptions(opts);
      const { manifests: loaded, declaredName } = await manifestsFrom(input, opts.cluster);
      if (loaded.length === 0 && !opts.allowEmpty && !opts.dryRun) {
        // An empty build would prune everything the previous deploy recorded: almost always a wrong path.
        throw new KgraphError(
          'KG7103',
          `${input} holds no objects; deploying it would prune everything deployed under this name (pass --allow-empty to do that)`,
        );
      }
      const name = deployNameFor(input, opts.name, declaredName);
      const kubeconfig = loadKubeConfig(opts.kubeconfig, opts.context);
      const client = new RestClient(kubeconfig);
      const contextNamespace = kubeconfig.getContextObject(kubeconfig.getCurrentContext())?.namespace;
      const namespace = opts.namespace || contextNamespace || 'default';
      const inventoryNamespace = opts.inventoryNamespace ?? namespace;
      try {
        const manifests = await defaultNamespaces(
          loaded,
          (apiVersion, kind) => client.discovery.resolveKind(apiVersion, kind),
          namespace,
        );
        if (opts.dryRun) {
          const plan = await planDeploy(client, manifests, {
            name,
            inventoryNamespace,
            fieldManager: opts.fieldManager,
            force: opts.force ?? false,
            prune: opts.prune,
            pruneProtected: opts.pruneProtected ?? false,
          });
          process.stdout.write(
            opts.output === 'json' ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan),
          );
          // The plan is what the run does: a run that would fail makes the dry run fail too.
          if (plan.fails) process.exitCode = 1;
          return;
        }
        const keys = manifests.map(
          (m) => `${m.apiVersion}/${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`,
        );
        const tty = Boolean(process.stdout.isTTY) && opts.output === 'text' && !process.env.CI;
        const write = (line: string) => {
          if (opts.output === 'text') process.stdout.write(`${line}\n`);
        };
        const result = await withProgress(keys, tty, write, (onEvent) =>
          new Deployer(client, {
            name,
            inventoryNamespace,
            fieldManager: opts.fieldManager,
            force: opts.force ?? false,
            confirmPrune: pruneConfirmation(name, opts.yes ?? false),
            wait: opts.wait,
            prune: opts.prune,
            pruneProtected: opts.pruneProtected ?? false,
            timeoutMs,
            onEvent,
          }).run(manifests),
        );
        if (opts.output === 'json') {
          process.stdout.write(`${JSON.stringify({ ...result, events: undefined }, null, 2)}\n`);
        } else {
          process.stdout.write(
            `${result.ok ? 'deployed' : 'FAILED'}: ${result.applied.length} applied, ${result.unchanged.length} unchanged, ${result.pruned.length} pruned, ${result.drift.length} drifted, ${result.failed.length} failed\n`,
          );
          for (const f of result.failed) process.stdout.write(`  failed ${keyName(f.key)}: ${f.message}\n`);
        }
        if (!result.ok) process.exitCode = 1;
      } finally {
        client.close();
      }
    });
}
