/**
 * `kgraph rbac <blueprint files…> [--crd FILE]… [--subject KIND:NAME] [--namespace NS]…` (planes.md
 * §10.2): what a consumer cluster admin applies to let kgraph serve a krop blueprint — the serving and
 * claims ClusterRoles, derived from the compiled blueprint exactly as the registrar derives them, and
 * the bindings to kgraph's identity in that cluster (`ConsumerCluster.status.identity`). Offline: the
 * blueprint is compiled against the CRD files and the built-in schemas, no cluster is contacted.
 */
import type { Command } from 'commander';
import {
  deriveClaims,
  generatedRoles,
  type RbacSubject,
  roleBindings,
  roleNames,
} from '../../controller/planes/claims.ts';
import { validatePaths } from '../../graph/validate.ts';
import { crdNames } from '../../schema/crd/generate.ts';
import { writeYamlDocuments } from '../../yaml/writeYaml.ts';

interface RbacCliOptions {
  crd: string[];
  subject: string;
  namespace: string[];
}

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

export function registerRbacCommand(program: Command): void {
  program
    .command('rbac')
    .description(
      'print the ClusterRoles and bindings a consumer cluster applies to let kgraph serve krop blueprints (offline)',
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
      "kgraph's identity in the consumer cluster (its ConsumerCluster's status.identity): serviceaccount:NS:NAME, user:NAME or group:NAME",
      'serviceaccount:kgraph-consumer:kgraph',
    )
    .option(
      '--namespace <ns>',
      'bind the claims role with RoleBindings in these namespaces instead of a ClusterRoleBinding (repeatable)',
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .action((files: string[], opts: RbacCliOptions) => {
      const out = runRbac(files, opts);
      process.stdout.write(out.stdout);
      process.stderr.write(out.stderr);
      process.exitCode = out.exitCode;
    });
}
