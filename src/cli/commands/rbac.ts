/**
 * `kgraph rbac <blueprint files…> [--crd FILE]… [--subject KIND:NAME | --cluster NAME] [--namespace NS]…`
 * (design/planes.md §10.2): what a consumer cluster admin applies to let kgraph serve a krop blueprint — the
 * serving and claims ClusterRoles, derived from the compiled blueprint exactly as the registrar derives
 * them, and the bindings to kgraph's identity in that cluster (`ConsumerCluster.status.identity`). The
 * blueprint is compiled offline against the CRD files and the built-in schemas; only `--cluster` reads
 * the management cluster, for that one ConsumerCluster's identity.
 */
import type { Command } from 'commander';
import {
  deriveClaims,
  generatedRoles,
  type RbacSubject,
  roleBindings,
  roleNames,
} from '../../controller/planes/claims.ts';
import { CONSUMER_PLURAL, KROP_API_VERSION } from '../../controller/planes/kropApi.ts';
import { KgraphError } from '../../diag/diagnostic.ts';
import { validatePaths } from '../../graph/validate.ts';
import { describeKubeConfig, loadKubeConfig } from '../../kube/connect.ts';
import { isNotFound } from '../../kube/errors.ts';
import { RestClient } from '../../kube/rest.ts';
import { crdNames } from '../../schema/crd/generate.ts';
import { writeYamlDocuments } from '../../yaml/writeYaml.ts';

interface RbacCliOptions {
  crd: string[];
  subject: string;
  namespace: string[];
}

/** The command's options: `--subject` and `--cluster` exclude each other; neither gives the default. */
export interface RbacCommandOptions {
  crd: string[];
  subject?: string;
  cluster?: string;
  namespace: string[];
  kubeconfig?: string;
  context?: string;
}

/** kgraph's identity in a consumer cluster as the deploy/planes examples create it. */
export const DEFAULT_SUBJECT = 'serviceaccount:kgraph-consumer:kgraph';

export interface RbacOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** `serviceaccount:NS:NAME`, `user:NAME` or `group:NAME`. */
export function parseSubject(text: string): RbacSubject | undefined {
  const [kind = '', ...rest] = text.split(':');
  const k = kind.toLowerCase();
  if ((k === 'serviceaccount' || k === 'sa') && rest.length === 2 && rest[0] && rest[1])
    return { kind: 'ServiceAccount', namespace: rest[0], name: rest[1] };
  // A ServiceAccount's user name (system:serviceaccount:NS:NAME), as status.identity reports it.
  if (k === 'system' && rest[0] === 'serviceaccount' && rest.length === 3 && rest[1] && rest[2])
    return { kind: 'ServiceAccount', namespace: rest[1], name: rest[2] };
  const name = rest.join(':');
  if (k === 'user' && name) return { kind: 'User', name };
  if (k === 'group' && name) return { kind: 'Group', name };
  return undefined;
}

export function runRbac(files: string[], opts: RbacCliOptions): RbacOutput {
  const subject = parseSubject(opts.subject);
  if (!subject)
    return {
      stdout: '',
      stderr: `kgraph rbac: --subject ${opts.subject}: expected serviceaccount:NS:NAME, system:serviceaccount:NS:NAME, user:NAME or group:NAME\n`,
      exitCode: 1,
    };
  const result = validatePaths(files, { crdFiles: opts.crd });
  const docs: unknown[] = [];
  const errors: string[] = result.fileDiagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => `${d.location?.file ?? ''}: ${d.message}`);
  result.results.forEach((r, i) => {
    const file = result.objects[i]?.file ?? '';
    if (!r.object.apiVersion.startsWith('krop.opendefense.cloud/')) return;
    const where = `${file}: ${r.object.kind} ${r.object.name}`;
    const info = r.graph?.rgd;
    if (!r.accepted || !r.graph || !info) {
      const first = r.diagnostics.find((d) => d.severity === 'error');
      errors.push(
        `${where} does not compile${first ? `: ${first.code} ${first.message}` : ''} (kgraph validate shows all)`,
      );
      return;
    }
    const names = crdNames(info.kind, info.group);
    const { claims, problems } = deriveClaims(r.graph, {
      group: info.group,
      plural: names.plural,
      kind: info.kind,
    });
    if (problems.length > 0) {
      errors.push(
        `${where}: ${problems.map((p) => `${p.reason} ${p.message}`).join('; ')} (give the CRD with --crd)`,
      );
      return;
    }
    const roles = roleNames(names.name);
    const ns = opts.namespace.length > 0 ? opts.namespace : undefined;
    const clusterScoped = claims.filter((c) => c.scope === 'Cluster');
    if (ns && clusterScoped.length > 0) {
      errors.push(
        `${where}: cluster-scoped claims (${clusterScoped.map((c) => c.resource).join(', ')}) need a ClusterRoleBinding of ${roles.claims}; drop --namespace`,
      );
      return;
    }
    docs.push(
      ...generatedRoles(names.name, { group: info.group, plural: names.plural }, claims),
      ...roleBindings(roles.serve, subject),
      ...(claims.length > 0 ? roleBindings(roles.claims, subject, ns) : []),
    );
  });
  if (errors.length > 0)
    return { stdout: '', stderr: `${errors.map((e) => `kgraph rbac: ${e}`).join('\n')}\n`, exitCode: 1 };
  if (docs.length === 0)
    return { stdout: '', stderr: 'kgraph rbac: no krop ResourceGraphDefinition found\n', exitCode: 1 };
  return { stdout: writeYamlDocuments(docs), stderr: '', exitCode: 0 };
}

/** Refuses option combinations that cannot mean anything; undefined when they are fine. */
export function checkRbacOptions(opts: RbacCommandOptions): string | undefined {
  if (opts.subject !== undefined && opts.cluster !== undefined)
    return '--subject and --cluster exclude each other: --cluster reads the subject from the ConsumerCluster';
  if (opts.cluster === undefined && (opts.kubeconfig !== undefined || opts.context !== undefined))
    return '--kubeconfig and --context name the management cluster --cluster reads; give --cluster NAME';
  if (opts.cluster === '') return '--cluster: give the name of a ConsumerCluster';
  return undefined;
}

/** The `--subject` text of a SelfSubjectReview user name: a ServiceAccount's, else a User. */
export function subjectOfUsername(username: string): string {
  return username.startsWith('system:serviceaccount:') ? username : `user:${username}`;
}

/**
 * The subject of ConsumerCluster `name` (its `status.identity.username`) in the management cluster
 * `client` talks to (`where` describes it for messages). Throws a KgraphError saying what to do when
 * the registration does not exist or has no identity yet.
 */
export async function clusterSubject(client: RestClient, name: string, where: string): Promise<string> {
  let cc: Record<string, unknown>;
  try {
    cc = (await client.get({
      apiVersion: KROP_API_VERSION,
      plural: CONSUMER_PLURAL,
      name,
    })) as unknown as Record<string, unknown>;
  } catch (e) {
    if (isNotFound(e))
      throw new KgraphError(
        'KG6090',
        `--cluster ${name}: no ConsumerCluster ${name} in the management cluster (${where}); register the consumer cluster first (docs/planes.md step 3, \`kubectl get consumerclusters\` lists them), or point --kubeconfig/--context at the management cluster`,
      );
    throw e;
  }
  const status = (cc.status ?? {}) as {
    identity?: { username?: unknown };
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
  };
  const username = status.identity?.username;
  if (typeof username === 'string' && username !== '') return subjectOfUsername(username);
  const connected = status.conditions?.find((c) => c.type === 'Connected');
  const why = connected
    ? ` (Connected=${connected.status ?? ''}${connected.reason ? ` ${connected.reason}` : ''}${connected.message ? `: ${connected.message}` : ''})`
    : ' (no Connected condition: is the planes controller running?)';
  throw new KgraphError(
    'KG6090',
    `--cluster ${name}: ConsumerCluster ${name} (${where}) has no status.identity yet${why}; the planes controller writes it once it connects with the registered kubeconfig — wait for Connected=True (\`kubectl get consumercluster ${name} -o yaml\`), or give the identity with --subject`,
  );
}

/** The command: the option checks, the subject (given, read with `--cluster`, or the default), the output. */
export async function rbacCommand(files: string[], opts: RbacCommandOptions): Promise<RbacOutput> {
  const bad = checkRbacOptions(opts);
  if (bad) return { stdout: '', stderr: `kgraph rbac: ${bad}\n`, exitCode: 1 };
  let subject = opts.subject ?? DEFAULT_SUBJECT;
  if (opts.cluster !== undefined) {
    let client: RestClient | undefined;
    try {
      const kc = loadKubeConfig(opts.kubeconfig, opts.context);
      client = new RestClient(kc);
      subject = await clusterSubject(client, opts.cluster, describeKubeConfig(kc));
    } catch (e) {
      const msg = e instanceof KgraphError ? `${e.code} ${e.message}` : (e as Error).message;
      return { stdout: '', stderr: `kgraph rbac: ${msg}\n`, exitCode: 1 };
    } finally {
      client?.close();
    }
  }
  return runRbac(files, { crd: opts.crd, subject, namespace: opts.namespace });
}

export function registerRbacCommand(program: Command): void {
  program
    .command('rbac')
    .description(
      'print the ClusterRoles and bindings a consumer cluster applies to let kgraph serve krop blueprints (offline, or reading the subject of --cluster)',
    )
    .argument('<files...>', 'krop ResourceGraphDefinition files')
    .option(
      '--crd <file>',
      'CRD of a consumer-target kind (repeatable)',
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .option(
      '--subject <subject>',
      `kgraph's identity in the consumer cluster (its ConsumerCluster's status.identity): serviceaccount:NS:NAME, user:NAME or group:NAME (default: ${DEFAULT_SUBJECT})`,
    )
    .option(
      '--cluster <name>',
      "read the subject from this ConsumerCluster's status.identity in the management cluster (excludes --subject)",
    )
    .option(
      '--kubeconfig <path>',
      'with --cluster: kubeconfig of the management cluster (default: KUBECONFIG, ~/.kube/config)',
    )
    .option('--context <name>', 'with --cluster: kubeconfig context')
    .option(
      '--namespace <ns>',
      'bind the claims role with RoleBindings in these namespaces instead of a ClusterRoleBinding (repeatable)',
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .action(async (files: string[], opts: RbacCommandOptions) => {
      const out = await rbacCommand(files, opts);
      process.stdout.write(out.stdout);
      process.stderr.write(out.stderr);
      process.exitCode = out.exitCode;
    });
}
