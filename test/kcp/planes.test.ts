// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the blueprints quote kgraph ${…} expressions
/**
 * The seed's worked example on a real kcp v0.30: the HostedDatabase blueprint in the
 * provider workspace `root:provider`, published as an APIResourceSchema and the APIExport
 * `hosteddatabases.krop.opendefense.cloud` with claims derived from its consumer-target nodes (the VPC
 * claim carrying the identity hash of `root:network`'s VPC export, bound in the provider workspace).
 * Three consumer workspaces bind the export and create a `db` instance each next to their VPC; two accept
 * both claims and converge (host Deployment on a kube-testenv host cluster, prefixed with the consumer's
 * logical-cluster name; qualified registration in the provider workspace; connection ConfigMap back in
 * the consumer, written through the virtual workspace); the third rejects the configmaps claim and gets
 * ClaimNotAccepted with nothing written in its workspace until it accepts. Then a live blueprint edit, an
 * edit that adds a claim (not accepted until the consumer accepts it), an instance deletion that reaches
 * every plane and leaves the VPC alone, ClaimIdentityUnresolved, and an unbind with a sweep. One kcp for
 * the file (about a minute).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decorate } from '../../src/controller/planes/chain.ts';
import type { KcpPlanesController } from '../../src/controller/planes/kcp/controller.ts';
import { recordObject } from '../../src/controller/planes/liveness.ts';
import { livenessRecordName, qualifiedName } from '../../src/controller/planes/naming.ts';
import type { KubeObject } from '../../src/kube/index.ts';
import { APIS_KCP_V1ALPHA1, APIS_KCP_V1ALPHA2 } from '../../src/kube/kcp.ts';
import { RestClient } from '../../src/kube/rest.ts';
import {
  type KcpControlPlane,
  type KcpWorkspace,
  kcpBinary,
  startKcp,
} from '../../src/localplane/kcpControlPlane.ts';
import { yamlObjects } from '../integration/planes/support.ts';
import { dedicatedControlPlane } from '../support/controlPlane.ts';
import {
  apply,
  bind,
  type ClaimDecision,
  cond,
  eventually,
  exportCrd,
  getObj,
  startKcpController,
} from './support.ts';

const EXPORT = 'hosteddatabases.krop.opendefense.cloud';
const TEAM = 'team-a';
const CRUD = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const READ = ['get', 'list', 'watch'];
const HD = 'krop.opendefense.cloud/v1alpha1';
const BP = { apiVersion: HD, kind: 'ResourceGraphDefinition' };
const timings: Record<string, number> = {};

interface Consumer {
  ws: KcpWorkspace;
  admin: RestClient;
}

function hostedDatabase(name: string): KubeObject {
  return { apiVersion: HD, kind: 'HostedDatabase', metadata: { name, namespace: TEAM }, spec: { name } };
}

describe('planes on kcp: HostedDatabase across the provider workspace, a host cluster and consumer workspaces', () => {
  let kcp: KcpControlPlane;
  let provider: RestClient;
  let host: RestClient;
  let controller: KcpPlanesController | undefined;
  let vpcIdentity = '';
  const consumers: Consumer[] = [];
  const claimDecisions = (configmaps: 'Accepted' | 'Rejected'): ClaimDecision[] => [
    { group: '', resource: 'configmaps', verbs: CRUD, state: configmaps },
    {
      group: 'ec2.services.k8s.aws',
      resource: 'vpcs',
      verbs: READ,
      identityHash: vpcIdentity,
      state: 'Accepted',
    },
  ];

  before(async () => {
    let t = Date.now();
    const [k, hostPlane] = await Promise.all([
      startKcp({
        dataDir: mkdtempSync(join(tmpdir(), 'kgraph-kcp-')),
        binary: kcpBinary({ build: true, log: (l) => process.stderr.write(`${l}\n`) }),
      }),
      dedicatedControlPlane({ workloads: false }),
    ]);
    kcp = k;
    host = new RestClient(hostPlane.kc);
    timings.kcpStartMs = Date.now() - t;
    t = Date.now();
    const [network, prov, ...cons] = await Promise.all(
      ['network', 'provider', 'consumer-a', 'consumer-b', 'consumer-c'].map((n) => kcp.workspace(n)),
    );
    timings.workspacesMs = Date.now() - t;
    t = Date.now();
    provider = new RestClient((prov as KcpWorkspace).kc);
    const net = new RestClient((network as KcpWorkspace).kc);
    const [vpcCrd] = yamlObjects('examples/planes/00-vpc-crd.yaml') as [KubeObject];
    vpcIdentity = await exportCrd(net, vpcCrd, 'vpcs.ec2.services.k8s.aws');
    net.close();
    const vpcExport = { path: 'root:network', name: 'vpcs.ec2.services.k8s.aws' };
    // The provider binds the foreign type: it type-checks against it and the claim's identity resolves.
    await bind(provider, 'vpcs', vpcExport);
    await apply(host, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'databases' } });
    for (const [i, ws] of (cons as KcpWorkspace[]).entries()) {
      const admin = new RestClient(ws.kc);
      consumers.push({ ws, admin });
      await bind(admin, 'vpcs', vpcExport);
      await apply(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TEAM } });
      await eventually('VPC served', () =>
        admin.discovery.resolveKind('ec2.services.k8s.aws/v1alpha1', 'VPC').then(() => true),
      );
      await apply(admin, {
        apiVersion: 'ec2.services.k8s.aws/v1alpha1',
        kind: 'VPC',
        metadata: { name: 'db-vpc', namespace: TEAM },
        spec: { cidrBlock: '10.0.0.0/16' },
      });
      await admin.applyStatus(
        {
          apiVersion: 'ec2.services.k8s.aws/v1alpha1',
          kind: 'VPC',
          metadata: { name: 'db-vpc', namespace: TEAM },
          status: { vpcID: `vpc-${i + 1}` },
        },
        { fieldManager: 'test', force: true },
      );
    }
    await eventually('VPC type in the provider workspace', () =>
      provider.discovery.resolveKind('ec2.services.k8s.aws/v1alpha1', 'VPC').then(() => true),
    );
    timings.setupMs = Date.now() - t;
    t = Date.now();
    controller = await startKcpController(provider, host);
    const [blueprint] = yamlObjects('examples/planes/10-hosteddatabase.yaml') as [KubeObject];
    await apply(provider, blueprint);
    await eventually(
      'hosteddatabase published',
      async () => {
        const b = await provider.get({ ...BP, name: 'hosteddatabase' });
        return cond(b, 'Ready')?.reason === 'Published' ? b : undefined;
      },
      60_000,
    );
    timings.publishMs = Date.now() - t;
    t = Date.now();
    for (const [i, c] of consumers.entries()) {
      await bind(
        c.admin,
        'hosteddatabases',
        { path: 'root:provider', name: EXPORT },
        claimDecisions(i < 2 ? 'Accepted' : 'Rejected'),
      );
      await eventually('HostedDatabase served', () =>
        c.admin.discovery.resolveKind(HD, 'HostedDatabase').then(() => true),
      );
      await apply(c.admin, hostedDatabase('db'));
    }
    timings.bindMs = Date.now() - t;
  });

  after(async () => {
    process.stderr.write(`kcp planes timings: ${JSON.stringify(timings)}\n`);
    await controller?.stop();
    for (const c of consumers) c.admin.close();
    provider?.close();
    host?.close();
    await kcp?.stop();
    if (kcp) rmSync(kcp.dataDir, { recursive: true, force: true });
  });

  it('publishes an APIResourceSchema and the APIExport <plural>.<group> with claims merged per GroupResource and identity hashes', async () => {
    const b = await provider.get({ ...BP, name: 'hosteddatabase' });
    const s = b.status as Record<string, unknown>;
    assert.equal(s.exportedAPI, EXPORT);
    const hash = String(s.observedSpecHash);
    assert.match(hash, /^[0-9a-f]{12}$/);
    assert.equal(s.apiResourceSchema, `v${hash}.${EXPORT}`);
    assert.deepEqual(s.claims, [
      { group: '', resource: 'configmaps', verbs: CRUD, scope: 'Namespaced', identityHash: '' },
      {
        group: 'ec2.services.k8s.aws',
        resource: 'vpcs',
        verbs: READ,
        scope: 'Namespaced',
        identityHash: vpcIdentity,
      },
    ]);
    const ars = await provider.get({
      apiVersion: APIS_KCP_V1ALPHA1,
      plural: 'apiresourceschemas',
      name: `v${hash}.${EXPORT}`,
    });
    assert.equal((ars.spec as { names: { kind: string } }).names.kind, 'HostedDatabase');
    const exp = await provider.get({ apiVersion: APIS_KCP_V1ALPHA2, plural: 'apiexports', name: EXPORT });
    const spec = exp.spec as { resources: { schema: string }[]; permissionClaims: Record<string, unknown>[] };
    assert.deepEqual(
      spec.resources.map((r) => r.schema),
      [`v${hash}.${EXPORT}`],
    );
    assert.deepEqual(
      spec.permissionClaims.map((c) => [c.group ?? '', c.resource, c.verbs, c.identityHash ?? '']),
      [
        ['', 'configmaps', CRUD, ''],
        ['ec2.services.k8s.aws', 'vpcs', READ, vpcIdentity],
      ],
    );
    assert.equal(s.identityHash, (exp.status as { identityHash: string }).identityHash);
  });

  it('converges two consumer workspaces with same-named instances, without collision', async () => {
    const t = Date.now();
    for (const [i, c] of consumers.slice(0, 2).entries()) {
      const id = c.ws.cluster;
      const inst = await eventually(
        `${c.ws.path} instance Ready`,
        async () => {
          const o = await getObj(c.admin, HD, 'HostedDatabase', 'db', TEAM);
          return cond(o, 'Ready')?.status === 'True' ? o : undefined;
        },
        90_000,
      );
      const st = inst.status as Record<string, unknown>;
      // The consumer-cluster annotation carried the logical-cluster name into CEL.
      assert.equal(st.endpoint, `${id}-db.databases.svc.cluster.local`);
      assert.equal(st.vpcID, `vpc-${i + 1}`);
      assert.equal(st.state, 'ACTIVE');
      assert.equal(inst.metadata.annotations?.['krop.opendefense.cloud/consumer-cluster'], undefined);

      const dep = await getObj(host, 'apps/v1', 'Deployment', `${id}-db`, 'databases');
      assert.ok(dep, `host Deployment ${id}-db`);
      assert.equal(dep.metadata.labels?.['krop.opendefense.cloud/consumer-cluster'], id);
      assert.equal(dep.metadata.labels?.['krop.opendefense.cloud/instance-uid'], inst.metadata.uid);
      assert.equal(dep.metadata.labels?.['krop.opendefense.cloud/blueprint'], EXPORT);

      const qn = qualifiedName(id, TEAM, 'db', 'db-registration', 'ConfigMap');
      const reg = await getObj(provider, 'v1', 'ConfigMap', qn, 'default');
      assert.ok(reg, `provider ConfigMap ${qn}`);
      assert.deepEqual(reg.data, { consumerCluster: id, engine: 'postgres' });

      const conn = await getObj(c.admin, 'v1', 'ConfigMap', 'db-connection', TEAM);
      assert.deepEqual(conn?.data, {
        endpoint: `${id}-db.databases.svc.cluster.local`,
        vpcID: `vpc-${i + 1}`,
      });
      assert.deepEqual(
        conn?.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]),
        [['HostedDatabase', 'db', inst.metadata.uid]],
      );
      const vpc = await getObj(c.admin, 'ec2.services.k8s.aws/v1alpha1', 'VPC', 'db-vpc', TEAM);
      assert.equal(
        Object.keys(vpc?.metadata.labels ?? {}).filter((l) => l.startsWith('krop.opendefense.cloud/')).length,
        0,
      );
      const rec = await getObj(
        provider,
        'v1',
        'ConfigMap',
        livenessRecordName(id, inst.metadata.uid ?? ''),
        'kgraph-system',
      );
      assert.equal((rec?.data as Record<string, string> | undefined)?.providerChildGVKs, '/v1/ConfigMap');
      assert.equal((rec?.data as Record<string, string> | undefined)?.hostChildGVKs, 'apps/v1/Deployment');
    }
    timings.convergeMs = Date.now() - t;
    assert.notEqual(consumers[0]?.ws.cluster, consumers[1]?.ws.cluster);
  });

  it('a claim rejected on the APIBinding gives ClaimNotAccepted and nothing written in that workspace', async () => {
    const c = consumers[2] as Consumer;
    const inst = await eventually(
      'ClaimNotAccepted',
      async () => {
        const o = await getObj(c.admin, HD, 'HostedDatabase', 'db', TEAM);
        return cond(o, 'Ready')?.reason === 'ClaimNotAccepted' ? o : undefined;
      },
      90_000,
    );
    assert.equal(cond(inst, 'Ready')?.status, 'False');
    assert.match(
      cond(inst, 'Ready')?.message ?? '',
      /claim configmaps is rejected on APIBinding hosteddatabases/,
    );
    assert.equal(await getObj(c.admin, 'v1', 'ConfigMap', 'db-connection', TEAM), undefined);
    // The nodes the accepted VPC claim feeds still converge.
    assert.ok(await getObj(host, 'apps/v1', 'Deployment', `${c.ws.cluster}-db`, 'databases'));
  });

  it('accepting the claim later on the APIBinding lets the child through', async () => {
    const c = consumers[2] as Consumer;
    await bind(
      c.admin,
      'hosteddatabases',
      { path: 'root:provider', name: EXPORT },
      claimDecisions('Accepted'),
    );
    const conn = await eventually(
      'connection written after acceptance',
      () => getObj(c.admin, 'v1', 'ConfigMap', 'db-connection', TEAM),
      60_000,
    );
    assert.equal((conn.data as Record<string, string>).vpcID, 'vpc-3');
    await eventually(
      `${c.ws.path} instance Ready`,
      async () =>
        cond(await getObj(c.admin, HD, 'HostedDatabase', 'db', TEAM), 'Ready')?.status === 'True' ||
        undefined,
      60_000,
    );
  });

  it('a live blueprint edit republishes a new schema and re-serves the existing instances', async () => {
    const t = Date.now();
    const before = (await provider.get({ ...BP, name: 'hosteddatabase' })).status as {
      observedSpecHash: string;
    };
    const starts = controller?.serveStarts.get('hosteddatabase') ?? 0;
    const [blueprint] = yamlObjects('examples/planes/10-hosteddatabase.yaml') as [KubeObject];
    const spec = blueprint.spec as {
      resources: { id: string; template?: { data?: Record<string, string> } }[];
    };
    const connection = spec.resources.find((r) => r.id === 'connection');
    assert.ok(connection?.template?.data);
    connection.template.data.extra = 'edited';
    await apply(provider, blueprint);
    for (const c of consumers.slice(0, 2)) {
      await eventually(
        `${c.ws.path} connection edited`,
        async () =>
          (
            (await getObj(c.admin, 'v1', 'ConfigMap', 'db-connection', TEAM))?.data as
              | Record<string, string>
              | undefined
          )?.extra === 'edited'
            ? true
            : undefined,
        90_000,
      );
    }
    const after = (await provider.get({ ...BP, name: 'hosteddatabase' })).status as {
      observedSpecHash: string;
    };
    assert.notEqual(after.observedSpecHash, before.observedSpecHash);
    const exp = await provider.get({ apiVersion: APIS_KCP_V1ALPHA2, plural: 'apiexports', name: EXPORT });
    assert.deepEqual(
      (exp.spec as { resources: { schema: string }[] }).resources.map((r) => r.schema),
      [`v${after.observedSpecHash}.${EXPORT}`],
    );
    assert.equal(controller?.serveStarts.get('hosteddatabase'), starts + 1);
    timings.editMs = Date.now() - t;
  });

  it('a claim an edit adds is not accepted until the consumer accepts it; the other children keep converging', async () => {
    const t = Date.now();
    const [blueprint] = yamlObjects('examples/planes/10-hosteddatabase.yaml') as [KubeObject];
    const spec = blueprint.spec as { resources: Record<string, unknown>[] };
    const connection = spec.resources.find((r) => r.id === 'connection') as {
      template: { data: Record<string, string> };
    };
    connection.template.data.extra = 'edited';
    spec.resources.push({
      id: 'credentials',
      template: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: '${schema.spec.name}-credentials' },
        data: { user: 'ZGI=' },
      },
    });
    await apply(provider, blueprint);
    await eventually(
      'secrets claim exported',
      async () => {
        const exp = await provider.get({ apiVersion: APIS_KCP_V1ALPHA2, plural: 'apiexports', name: EXPORT });
        const claims = (exp.spec as { permissionClaims: { resource: string; verbs: string[] }[] })
          .permissionClaims;
        return claims.some((c) => c.resource === 'secrets' && c.verbs.length === CRUD.length) || undefined;
      },
      60_000,
    );
    const a = consumers[0] as Consumer;
    const blocked = await eventually(
      'secrets claim not accepted',
      async () => {
        const o = await getObj(a.admin, HD, 'HostedDatabase', 'db', TEAM);
        const r = cond(o, 'Ready');
        return r?.reason === 'ClaimNotAccepted' && /secrets/.test(r.message) ? r : undefined;
      },
      60_000,
    );
    assert.match(blocked.message, /resource credentials/);
    assert.equal(await getObj(a.admin, 'v1', 'Secret', 'db-credentials', TEAM), undefined);
    const edited = await getObj(a.admin, 'v1', 'ConfigMap', 'db-connection', TEAM);
    assert.equal((edited?.data as Record<string, string> | undefined)?.extra, 'edited');
    await bind(a.admin, 'hosteddatabases', { path: 'root:provider', name: EXPORT }, [
      ...claimDecisions('Accepted'),
      { group: '', resource: 'secrets', verbs: CRUD, state: 'Accepted' },
    ]);
    const secret = await eventually(
      'Secret written after acceptance',
      () => getObj(a.admin, 'v1', 'Secret', 'db-credentials', TEAM),
      60_000,
    );
    assert.equal(secret.metadata.labels?.['krop.opendefense.cloud/consumer-cluster'], a.ws.cluster);
    await eventually(
      `${a.ws.path} Ready again`,
      async () =>
        cond(await getObj(a.admin, HD, 'HostedDatabase', 'db', TEAM), 'Ready')?.status === 'True' ||
        undefined,
      60_000,
    );
    timings.newClaimMs = Date.now() - t;
  });

  it('deleting an instance removes its children on every plane and leaves the VPC untouched', async () => {
    const t = Date.now();
    const c = consumers[0] as Consumer;
    const id = c.ws.cluster;
    const inst = await getObj(c.admin, HD, 'HostedDatabase', 'db', TEAM);
    await c.admin.delete({ apiVersion: HD, kind: 'HostedDatabase', namespace: TEAM, name: 'db' });
    await eventually(
      'instance gone',
      async () =>
        (await getObj(c.admin, HD, 'HostedDatabase', 'db', TEAM)) === undefined ? true : undefined,
      90_000,
    );
    assert.equal(await getObj(host, 'apps/v1', 'Deployment', `${id}-db`, 'databases'), undefined);
    assert.equal(await getObj(c.admin, 'v1', 'ConfigMap', 'db-connection', TEAM), undefined);
    assert.equal(await getObj(c.admin, 'v1', 'Secret', 'db-credentials', TEAM), undefined);
    assert.equal(
      await getObj(
        provider,
        'v1',
        'ConfigMap',
        qualifiedName(id, TEAM, 'db', 'db-registration', 'ConfigMap'),
        'default',
      ),
      undefined,
    );
    assert.equal(
      await getObj(
        provider,
        'v1',
        'ConfigMap',
        livenessRecordName(id, inst?.metadata.uid ?? ''),
        'kgraph-system',
      ),
      undefined,
    );
    const vpc = await getObj(c.admin, 'ec2.services.k8s.aws/v1alpha1', 'VPC', 'db-vpc', TEAM);
    assert.ok(vpc);
    assert.equal((vpc.status as { vpcID?: string }).vpcID, 'vpc-1');
    // The other consumer's same-named instance keeps everything.
    const other = consumers[1] as Consumer;
    assert.ok(await getObj(host, 'apps/v1', 'Deployment', `${other.ws.cluster}-db`, 'databases'));
    assert.ok(await getObj(other.admin, 'v1', 'ConfigMap', 'db-connection', TEAM));
    timings.deleteMs = Date.now() - t;
  });

  it('a consumer type no APIBinding provides in the provider workspace refuses the publication: ClaimIdentityUnresolved', async () => {
    // A CRD of the provider's own: it type-checks, but no export owns it, so no identity hash exists.
    await apply(provider, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.io' },
      spec: {
        group: 'example.io',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    await eventually('Gadget served', () =>
      provider.discovery.resolveKind('example.io/v1', 'Gadget').then(() => true),
    );
    await apply(provider, {
      ...BP,
      metadata: { name: 'gadgetuser' },
      spec: {
        schema: { apiVersion: 'v1alpha1', kind: 'GadgetUser', spec: { name: 'string' } },
        resources: [
          {
            id: 'gadget',
            externalRef: {
              apiVersion: 'example.io/v1',
              kind: 'Gadget',
              metadata: { name: '${schema.spec.name}' },
            },
          },
        ],
      },
    });
    const b = await eventually(
      'ClaimIdentityUnresolved',
      async () => {
        const o = await provider.get({ ...BP, name: 'gadgetuser' });
        return cond(o, 'Ready')?.reason === 'ClaimIdentityUnresolved' ? o : undefined;
      },
      60_000,
    );
    assert.match(cond(b, 'Ready')?.message ?? '', /gadgets\.example\.io/);
    assert.equal(
      await provider.getOrUndefined({
        apiVersion: APIS_KCP_V1ALPHA2,
        plural: 'apiexports',
        name: 'gadgetusers.krop.opendefense.cloud',
      }),
      undefined,
    );
  });

  it('a consumer that unbinds loses its provider and host children; the sweeper keeps a bound one', async () => {
    const t = Date.now();
    const b = consumers[1] as Consumer;
    const c = consumers[2] as Consumer;
    await b.admin.delete({ apiVersion: APIS_KCP_V1ALPHA2, plural: 'apibindings', name: 'hosteddatabases' });
    // kcp deletes the bound instances with the binding: kgraph's finalizer path (or, had it missed the
    // window, the sweeper) reclaims the provider and host children.
    await eventually(
      'host Deployment of the unbound consumer gone',
      async () =>
        (await getObj(host, 'apps/v1', 'Deployment', `${b.ws.cluster}-db`, 'databases')) ? undefined : true,
      120_000,
    );
    // A record the finalizer path could not reach (as after a controller outage): its provider child is
    // reclaimed once the virtual workspace refuses the instance GET (no binding any more).
    const ctx = {
      clusterID: b.ws.cluster,
      exportName: EXPORT,
      instance: { apiVersion: HD, kind: 'HostedDatabase', name: 'lost', namespace: TEAM, uid: 'lost-uid' },
    };
    const orphan = decorate(
      ctx,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lost-registration', namespace: 'default' } },
      { target: 'provider', resolved: undefined },
    );
    await apply(provider, orphan as KubeObject);
    await apply(
      provider,
      recordObject(
        'kgraph-system',
        ctx,
        { provider: ['/v1/ConfigMap'], host: [], consumer: [] },
        '2020-01-01T00:00:00Z',
      ),
    );
    const later = () => new Date(Date.now() + 2 * 3_600_000);
    const report = await controller?.sweeper.withClock(later, new Date(Date.now() - 10 * 3_600_000)).sweep();
    const cInst = await getObj(c.admin, HD, 'HostedDatabase', 'db', TEAM);
    const cRecord = livenessRecordName(c.ws.cluster, cInst?.metadata.uid ?? '');
    assert.equal(report?.decisions.get(cRecord), 'alive');
    assert.equal(report?.decisions.get(livenessRecordName(b.ws.cluster, 'lost-uid')), 'swept');
    assert.equal(
      await getObj(provider, 'v1', 'ConfigMap', (orphan.metadata as { name: string }).name, 'default'),
      undefined,
    );
    assert.equal(
      await getObj(
        provider,
        'v1',
        'ConfigMap',
        qualifiedName(b.ws.cluster, TEAM, 'db', 'db-registration', 'ConfigMap'),
        'default',
      ),
      undefined,
    );
    const { items } = await provider.listAll(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kgraph-system' },
      { labelSelector: `krop.opendefense.cloud/consumer-cluster=${b.ws.cluster}` },
    );
    assert.equal(items.length, 0, 'no liveness record of the unbound consumer');
    assert.ok(await getObj(host, 'apps/v1', 'Deployment', `${c.ws.cluster}-db`, 'databases'));
    timings.unbindMs = Date.now() - t;
  });
});
