/**
 * charts/kgraph with the real Helm CLI (tools/helm-cli: helm.sh/helm/v4/cmd/helm from the Go module
 * proxy) against the local control plane with workloads (KWOK plays the kubelet, so pods report Ready
 * but no container runs): `helm lint --strict`, `helm install`, `helm upgrade` with changed values,
 * `helm uninstall`. What is checked is what Helm and the control plane do with the chart: the objects,
 * the rollout, the RBAC aggregation, and what survives an uninstall.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';
import { uniqueName, workloadControlPlane } from '../../support/controlPlane.ts';
import { eventually } from '../../support/kube.ts';

const run = promisify(execFile);
const chart = join(repoRoot, 'charts', 'kgraph');

let helmBin = '';
let env: NodeJS.ProcessEnv = {};
let client: RestClient;
const home = mkdtempSync(join(tmpdir(), 'kgraph-helm-'));

/** Runs helm; a non-zero exit rejects with its stderr. */
async function helm(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run(helmBin, args, { env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`helm ${args.join(' ')}: ${err.stderr || err.stdout || err.message}`);
  }
}

type Obj = KubeObject & Record<string, unknown>;
const get = (apiVersion: string, kind: string, name: string, namespace?: string): Promise<Obj | undefined> =>
  client.getOrUndefined({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) }) as Promise<
    Obj | undefined
  >;

interface PodSpec {
  securityContext: Record<string, unknown>;
  serviceAccountName: string;
  containers: {
    args: string[];
    image: string;
    securityContext: Record<string, unknown>;
    livenessProbe?: unknown;
    readinessProbe?: unknown;
    resources: Record<string, unknown>;
  }[];
}
const podSpec = (d: Obj): PodSpec => (d.spec as { template: { spec: PodSpec } }).template.spec;

/** The ReplicaSets of a Deployment, by name. */
async function replicaSets(ns: string, release: string): Promise<string[]> {
  const list = await client.list(
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: ns },
    { labelSelector: `app.kubernetes.io/instance=${release}` },
  );
  return list.items.map((r) => r.metadata.name ?? '').sort();
}

async function allowed(sa: string, ns: string, verb: string, resource: string, group = ''): Promise<boolean> {
  const review = (await client.create({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: {
      user: `system:serviceaccount:${ns}:${sa}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
      resourceAttributes: { verb, resource, group, namespace: ns },
    },
  })) as Obj;
  return (review.status as { allowed?: boolean }).allowed === true;
}

/**
 * Helm 4, the current major, and Helm 3, which most clusters still run: the same checks with each
 * (tools/helm-cli and tools/helm3-cli, both from the Go module proxy).
 */
const HELMS = [
  { label: 'Helm 4', tool: 'helm-cli', version: /^v4\.3\.2\b/ },
  { label: 'Helm 3', tool: 'helm3-cli', version: /^v3\.21\.4\b/ },
] as const;

for (const h of HELMS) {
  describe(`charts/kgraph with ${h.label}`, { timeout: 15 * 60_000 }, () => {
    const ns = uniqueName('kgraph-helm');
    const release = uniqueName('kgraph');
    const userRole = uniqueName('kro-user-secrets');

    before(async () => {
      helmBin = execFileSync('bash', [join(repoRoot, 'tools', h.tool, 'build.sh')], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }).trim();
      const cp = await workloadControlPlane();
      client = new RestClient(cp.kc);
      env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        KUBECONFIG: cp.kubeconfigPath,
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_DATA_HOME: join(home, 'data'),
        // Without HOME, Helm's Kubernetes client caches discovery under the working directory.
        HOME: home,
        KUBECACHEDIR: join(home, 'kube-cache'),
      };
    });

    after(async () => {
      await client
        ?.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: userRole })
        .catch(() => undefined);
      client?.close();
    });

    it(`is ${h.label} from the pinned module`, async () => {
      assert.match(await helm('version', '--short'), h.version);
    });

    it('passes helm lint --strict, with the defaults and with every optional part on', async () => {
      await helm('lint', '--strict', chart);
      const all = join(home, 'all.yaml');
      writeFileSync(
        all,
        JSON.stringify({
          metrics: { serviceMonitor: { enabled: true } },
          networkPolicy: { enabled: true, metricsFrom: [{ namespaceSelector: {} }] },
          controllers: { planes: { enabled: true } },
          watchNamespaces: ['a', 'b'],
          rbac: { mode: 'unrestricted' },
        }),
      );
      await helm('lint', '--strict', chart, '-f', all);
    });

    it('refuses values the schema does not admit, naming the value', async () => {
      await assert.rejects(
        helm('lint', '--strict', chart, '--set', 'rbac.mode=everything'),
        /rbac\/mode|rbac\.mode/,
      );
      await assert.rejects(helm('lint', '--strict', chart, '--set', 'deployment.replicas=3'), /replicas/);
      await assert.rejects(
        helm('template', 'x', chart, '--set', 'controllers.graphs=false,controllers.rgds=false'),
        /at least one of graphs, rgds and planes.enabled/,
      );
    });

    it('installs: CRDs, a hardened Deployment that rolls out, RBAC aggregating kro-labelled ClusterRoles', async () => {
      const t0 = Date.now();
      await helm(
        'install',
        release,
        chart,
        '--namespace',
        ns,
        '--create-namespace',
        '--wait',
        '--timeout',
        '3m',
      );
      const installMs = Date.now() - t0;
      for (const crd of [
        'graphs.kro.run',
        'resourcegraphdefinitions.kro.run',
        'resourcegraphdefinitions.krop.opendefense.cloud',
        'consumerclusters.krop.opendefense.cloud',
      ]) {
        assert.ok(await get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd), crd);
      }
      const d = await get('apps/v1', 'Deployment', release, ns);
      assert.ok(d);
      assert.equal((d.status as { readyReplicas?: number }).readyReplicas, 2);
      const spec = podSpec(d);
      const c = spec.containers[0]!;
      assert.equal(c.image, 'ghcr.io/kgraph/kgraph:0.1.0');
      for (const a of [
        'controller',
        '--no-install-crd',
        '--leader-elect',
        `--leader-election-namespace=${ns}`,
      ]) {
        assert.ok(c.args.includes(a), `${a} in ${c.args.join(' ')}`);
      }
      assert.equal(spec.securityContext.runAsNonRoot, true);
      assert.equal(c.securityContext.readOnlyRootFilesystem, true);
      assert.equal(c.securityContext.allowPrivilegeEscalation, false);
      assert.ok(c.livenessProbe && c.readinessProbe);
      assert.ok(await get('v1', 'Service', `${release}-metrics`, ns));
      assert.ok(await get('policy/v1', 'PodDisruptionBudget', release, ns));
      assert.equal(await get('networking.k8s.io/v1', 'NetworkPolicy', release, ns), undefined);

      // The controller's own rights, from the static role.
      assert.equal(await allowed(release, ns, 'create', 'leases', 'coordination.k8s.io'), true);
      assert.equal(await allowed(release, ns, 'patch', 'graphs', 'kro.run'), true);
      // A ClusterRole written for kro (kro's label) grants kgraph the same, through aggregation.
      assert.equal(await allowed(release, ns, 'create', 'secrets'), false);
      await client.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: userRole, labels: { 'rbac.kro.run/aggregate-to-controller': 'true' } },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['create'] }],
      });
      await eventually('the aggregated role to grant secrets', async () =>
        (await allowed(release, ns, 'create', 'secrets')) ? true : undefined,
      );
      console.log(`# helm install --wait: ${installMs} ms`);
    });

    const metricsPort = async (): Promise<number | undefined> => {
      const svc = await get('v1', 'Service', `${release}-metrics`, ns);
      return (svc?.spec as { ports: { port: number }[] } | undefined)?.ports[0]?.port;
    };

    it('upgrades: changed pod values roll the Deployment; a Service-only change does not', async () => {
      const before = await replicaSets(ns, release);
      assert.equal(before.length, 1);

      await helm(
        'upgrade',
        release,
        chart,
        '-n',
        ns,
        '--reuse-values',
        '--set',
        'metrics.service.port=9090',
        '--wait',
      );
      assert.deepEqual(await replicaSets(ns, release), before, 'no new ReplicaSet for a Service port');
      assert.equal(await metricsPort(), 9090);

      const t0 = Date.now();
      await helm(
        'upgrade',
        release,
        chart,
        '-n',
        ns,
        '--reuse-values',
        '--set',
        'config.logLevel=debug,deployment.replicaCount=3,networkPolicy.enabled=true',
        '--wait',
        '--timeout',
        '3m',
      );
      const upgradeMs = Date.now() - t0;
      const after = await replicaSets(ns, release);
      assert.equal(after.length, 2, 'a new ReplicaSet for the new args');
      const d = await get('apps/v1', 'Deployment', release, ns);
      assert.ok(d);
      const status = d.status as { readyReplicas?: number; updatedReplicas?: number };
      assert.equal(status.updatedReplicas, 3);
      assert.equal(status.readyReplicas, 3);
      assert.ok(podSpec(d).containers[0]!.args.includes('--log-level=debug'));
      assert.equal(await metricsPort(), 9090, '--reuse-values kept the earlier --set');
      assert.ok(await get('networking.k8s.io/v1', 'NetworkPolicy', release, ns));
      const history = JSON.parse(await helm('history', release, '-n', ns, '-o', 'json')) as {
        revision: number;
      }[];
      assert.deepEqual(
        history.map((h) => h.revision),
        [1, 2, 3],
      );
      console.log(`# helm upgrade --wait (rolling 2 → 3 replicas): ${upgradeMs} ms`);
    });

    it('uninstalls: the release objects go; CRDs and user objects stay', async () => {
      const graph = uniqueName('kept');
      await client.create({
        apiVersion: 'kro.run/v1alpha1',
        kind: 'Graph',
        metadata: { name: graph, namespace: ns },
        spec: {
          nodes: [
            { id: 'cm', template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' } } },
          ],
        },
      } as KubeObject);
      // No --wait: Helm deletes the release's ClusterRoles concurrently, each delete makes kube-controller-
      // manager's clusterrole-aggregation controller re-sync every aggregated role, and its sync is a
      // server-side apply, which re-creates an aggregated role deleted after its informer last saw it. Helm's
      // wait then times out on that role (seen in about one run in three here). See docs/install.md.
      await helm('uninstall', release, '-n', ns);
      assert.equal(await get('apps/v1', 'Deployment', release, ns), undefined);
      const aggregated = `${release}:controller`;
      const left = await eventually(
        'the aggregated ClusterRole gone, or re-created by the aggregation controller',
        async () => {
          const role = await get('rbac.authorization.k8s.io/v1', 'ClusterRole', aggregated);
          if (!role) return 'gone';
          const managers = (role.metadata.managedFields ?? []).map((f) => f.manager);
          const helmOwned = role.metadata.annotations?.['meta.helm.sh/release-name'] !== undefined;
          return !helmOwned && managers.every((m) => m === 'clusterrole-aggregation-controller')
            ? 'recreated'
            : undefined;
        },
      );
      if (left === 'recreated') {
        // The re-created role holds only the aggregated rules: no labels, no aggregationRule, and no binding.
        const role = await get('rbac.authorization.k8s.io/v1', 'ClusterRole', aggregated);
        assert.equal(role?.aggregationRule, undefined);
        assert.equal(await get('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', aggregated), undefined);
        await client.delete({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          name: aggregated,
        });
        console.log(
          '# uninstall: the aggregation controller re-created the aggregated ClusterRole (deleted by the test)',
        );
      }
      assert.equal(await get('v1', 'ServiceAccount', release, ns), undefined);
      assert.ok(await get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'graphs.kro.run'));
      assert.ok(await get('kro.run/v1alpha1', 'Graph', graph, ns), 'the Graph stays');
      assert.ok(
        await get('rbac.authorization.k8s.io/v1', 'ClusterRole', userRole),
        "the user's ClusterRole stays",
      );
    });
  });
}
