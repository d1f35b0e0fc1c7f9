// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The chart's RBAC is enough: charts/kgraph installed with the real Helm CLI (0 replicas: no pod runs
 * here), then `kgraph controller` run out of cluster with a TokenRequest token of the chart's
 * ServiceAccount converges a Graph (writes through the impersonated Graph ServiceAccount) and an RGD
 * with an instance (its CRD and child written with the controller's own, aggregated, rights) and a planes
 * blueprint served to a consumer cluster (a second control plane). The rights the API server reports for
 * that ServiceAccount are kept equal to controllerRights.txt, the list of what the controller uses. A
 * control plane of its own, so no other test's controller serves these RGDs.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { serviceAccountKubeconfig } from '../../../src/controller/planes/consumerSide.ts';
import { isApiError } from '../../../src/kube/index.ts';
import { KubeConfig } from '../../../src/kube/kubeconfig.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { dedicatedControlPlane } from '../../support/controlPlane.ts';
import { eventually } from '../../support/kube.ts';
import {
  apply,
  blueprint,
  type Consumer,
  cmT,
  grantPublished,
  instanceOf,
  ns as namespaceObject,
  type Planes,
  SUBJECT,
  serviceAccountClient,
  waitEntry,
} from '../planes/support.ts';
import { grantedRights, rightsList } from './grantedRights.ts';

const run = promisify(execFile);
const ns = 'kgraph-system';
const apps = 'apps';

describe("the chart's RBAC, used by the controller out of cluster", { timeout: 10 * 60_000 }, () => {
  let admin: RestClient;
  let asController: RestClient;
  let controller: ChildProcess | undefined;
  let planes: Planes | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'kgraph-chart-rbac-'));

  before(async () => {
    const helm = execFileSync('bash', [join(repoRoot, 'tools', 'helm-cli', 'build.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    const [cp, consumerCp] = await Promise.all([
      dedicatedControlPlane({ workloads: false }),
      dedicatedControlPlane({ workloads: false }),
    ]);
    admin = new RestClient(cp.kc);
    await run(
      helm,
      ['install', 'kgraph', join(repoRoot, 'charts', 'kgraph'), '-n', ns, '--create-namespace'].concat([
        '--set',
        'deployment.replicaCount=0',
        '--set',
        'controllers.planes.enabled=true',
      ]),
      {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          KUBECONFIG: cp.kubeconfigPath,
          HELM_CACHE_HOME: join(dir, 'cache'),
          HELM_CONFIG_HOME: join(dir, 'config'),
          HELM_DATA_HOME: join(dir, 'data'),
          // Without HOME, Helm's Kubernetes client caches discovery under the working directory.
          HOME: dir,
          KUBECACHEDIR: join(dir, 'kube-cache'),
        },
      },
    );
    const tr = (await admin.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/serviceaccounts/kgraph/token`,
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600 },
      },
    })) as { status: { token: string } };
    const cluster = cp.kc.getCurrentCluster();
    assert.ok(cluster);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ ...cluster, name: 'plane' }],
      users: [{ name: 'kgraph', token: tr.status.token }],
      contexts: [{ name: 'kgraph', cluster: 'plane', user: 'kgraph' }],
      currentContext: 'kgraph',
    });
    const kubeconfig = join(dir, 'kgraph.kubeconfig');
    writeFileSync(kubeconfig, kc.exportConfig());
    asController = new RestClient(kc);

    // The Graph's own ServiceAccount, allowed to write ConfigMaps in its namespace.
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: apps } });
    await admin.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'deployer', namespace: apps },
    });
    await admin.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'configmaps', namespace: apps },
      rules: [
        {
          apiGroups: [''],
          resources: ['configmaps'],
          verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
        },
      ],
    } as KubeObject);
    await admin.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'deployer-configmaps', namespace: apps },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmaps' },
      subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: apps }],
    } as KubeObject);

    // The consumer cluster, registered as the planes tests register theirs (design/planes.md §10.2).
    const management = { cp, admin };
    const consumer: Consumer = {
      cp: consumerCp,
      admin: new RestClient(consumerCp.kc),
      name: 'consumer-1',
      subject: `system:serviceaccount:${SUBJECT.namespace}:${SUBJECT.name}`,
    };
    planes = { management, host: management, consumers: [consumer] };
    const consumerKubeconfig = await serviceAccountKubeconfig(consumer.admin, SUBJECT, 7200);
    await admin.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'consumer-1-kubeconfig', namespace: ns },
      data: { kubeconfig: Buffer.from(consumerKubeconfig).toString('base64') },
    });
    await apply(admin, {
      apiVersion: 'krop.opendefense.cloud/v1alpha1',
      kind: 'ConsumerCluster',
      metadata: { name: consumer.name },
      // `{}` selects every blueprint (an absent selector selects none).
      spec: {
        kubeconfigSecretRef: { name: 'consumer-1-kubeconfig', key: 'kubeconfig' },
        blueprintSelector: {},
      },
    });
    await apply(consumer.admin, namespaceObject(apps));

    const port = await freePort();
    controller = spawnController(kubeconfig, port, [
      '--leader-elect',
      '--leader-election-namespace',
      ns,
      '--planes',
      '--planes-namespace',
      ns,
    ]);
    await waitReadyz(port, 'the controller as the chart ServiceAccount', 120_000);
  });

  after(async () => {
    controller?.kill('SIGTERM');
    asController?.close();
    admin?.close();
    for (const c of planes?.consumers ?? []) c.admin.close();
  });

  it('is really restricted: it may not write a Secret itself', async () => {
    await assert.rejects(
      asController.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'direct', namespace: apps },
      }),
      (e) => isApiError(e) && e.code === 403,
    );
  });

  it('converges a Graph, writing through the Graph ServiceAccount', async () => {
    await admin.create({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'Graph',
      metadata: { name: 'settings', namespace: apps },
      spec: {
        serviceAccountName: 'deployer',
        nodes: [
          {
            id: 'cm',
            template: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'settings' },
              data: { a: '1' },
            },
          },
        ],
      },
    } as KubeObject);
    const cm = await eventually(
      'the Graph ConfigMap',
      () => admin.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: apps, name: 'settings' }),
      60_000,
    );
    assert.equal((cm.data as Record<string, string>).a, '1');
  });

  it('converges an RGD and an instance with the aggregated rights', async () => {
    await admin.create({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      metadata: { name: 'greeting' },
      spec: {
        schema: { apiVersion: 'v1alpha1', kind: 'Greeting', spec: { text: 'string | default="hello"' } },
        resources: [
          {
            id: 'cm',
            template: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: '${schema.metadata.name}-greeting' },
              data: { text: '${schema.spec.text}' },
            },
          },
        ],
      },
    } as KubeObject);
    await eventually(
      'the generated CRD',
      () =>
        admin.getOrUndefined({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name: 'greetings.kro.run',
        }),
      60_000,
    );
    await eventually(
      'the instance to be accepted',
      () =>
        admin
          .create({
            apiVersion: 'kro.run/v1alpha1',
            kind: 'Greeting',
            metadata: { name: 'hi', namespace: apps },
            spec: { text: 'from-the-chart-rbac' },
          } as KubeObject)
          .then(() => true),
      60_000,
      500,
    );
    const cm = await eventually(
      "the instance's ConfigMap",
      () =>
        admin.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: apps, name: 'hi-greeting' }),
      60_000,
    );
    assert.equal((cm.data as Record<string, string>).text, 'from-the-chart-rbac');
    // The chart's CRDs and role cover GraphRevisions: the RGD's first revision was issued and verified.
    const revision = await admin.get({
      apiVersion: 'internal.kro.run/v1alpha1',
      kind: 'GraphRevision',
      name: 'greeting-r00001',
    });
    const ready = (revision.status as { conditions?: { type: string; status: string }[] } | undefined)
      ?.conditions;
    assert.equal(ready?.find((c) => c.type === 'Ready')?.status, 'True');
  });

  it('serves a planes blueprint to a consumer cluster', async () => {
    const p = planes as Planes;
    const consumer = p.consumers[0] as Consumer;
    await apply(
      admin,
      blueprint(
        'planegreeting',
        'PlaneGreeting',
        [{ id: 'cm', template: cmT('${schema.metadata.name}-plane', { text: '${schema.spec.text}' }) }],
        { spec: { text: 'string' } },
      ),
    );
    await grantPublished(p, consumer, 'planegreeting');
    await waitEntry(p, consumer, 'planegreeting');
    await apply(consumer.admin, instanceOf('PlaneGreeting', 'hi', apps, { text: 'from-the-chart-rbac' }));
    const cm = await eventually(
      "the planes instance's ConfigMap in the consumer cluster",
      () =>
        consumer.admin.getOrUndefined({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: apps,
          name: 'hi-plane',
        }),
      90_000,
    );
    assert.equal((cm.data as Record<string, string>).text, 'from-the-chart-rbac');
  });

  it('grants exactly the rights the controller uses (controllerRights.txt)', async () => {
    const bare = await serviceAccountClient(admin, { namespace: ns, name: 'no-rights' });
    try {
      const granted = await grantedRights(asController, bare, ns, apps);
      const listed = rightsList(join(repoRoot, 'test', 'integration', 'install', 'controllerRights.txt'));
      assert.deepEqual(
        granted,
        listed,
        `the chart's grants differ from controllerRights.txt; granted:\n${granted.join('\n')}`,
      );
    } finally {
      bare.close();
    }
  });
});
