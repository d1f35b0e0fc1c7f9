// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Permission claims on real control planes (design/planes.md §10): a consumer
 * type the management cluster does not know (ClaimTypeUnresolved, then published once its CRD is
 * installed; a consumer cluster without the type is not served), a partial grant (the pre-check names
 * the missing verbs; a full grant lets the child in; revoking blocks writes again), a claim added by a
 * blueprint edit (never auto-accepted: the new node waits while the others converge), and a
 * cluster-scoped consumer kind (accepted only through a ClusterRoleBinding).
 *
 * Every scenario grants its configmaps/secrets claims through RoleBindings in its own namespace: RBAC
 * is a union over all bindings of kgraph's identity, so a cluster-wide grant of one scenario would
 * satisfy another's pre-check.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { roleNames } from '../../../src/controller/planes/claims.ts';
import { bindingName, bindRole } from '../../../src/controller/planes/consumerSide.ts';
import { installWidgetCRD } from '../../support/kube.ts';
import {
  AV,
  apply,
  BP,
  blueprint,
  type Consumer,
  cmT,
  cond,
  exportOf,
  getObj,
  grantPublished,
  instanceOf,
  planesFixture,
  readyReason,
  SUBJECT,
  sleep,
  waitEntry,
  waitFor,
  waitPublished,
} from './support.ts';

const GADGET_GROUP = 'x.kgraph.test';

const GADGETS = blueprint(
  'gadgets',
  'GadgetSet',
  [
    {
      id: 'gadget',
      template: {
        apiVersion: `${GADGET_GROUP}/v1`,
        kind: 'Widget',
        metadata: { name: '${schema.spec.name}' },
        spec: { size: 1 },
      },
    },
  ],
  { spec: { name: 'string' } },
);

const PARTIAL = blueprint(
  'partial',
  'Partial',
  [{ id: 'child', template: cmT('${schema.spec.name}-child', { value: '${schema.spec.value}' }) }],
  { spec: { name: 'string', value: 'string' } },
);

const editable = (withSecret: boolean) =>
  blueprint(
    'editable',
    'Editable',
    [
      { id: 'config', template: cmT('${schema.spec.name}-config', { value: '${schema.spec.value}' }) },
      ...(withSecret
        ? [
            {
              id: 'secret',
              template: {
                apiVersion: 'v1',
                kind: 'Secret',
                metadata: { name: '${schema.spec.name}-secret' },
                stringData: { value: '${schema.spec.value}' },
              },
            },
          ]
        : []),
    ],
    { spec: { name: 'string', value: 'string' } },
  );

const CLUSTER_SCOPED = blueprint(
  'viewers',
  'Viewer',
  [
    {
      id: 'role',
      template: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: '${schema.metadata.namespace}-${schema.spec.name}-viewer' },
        rules: [],
      },
    },
  ],
  { spec: { name: 'string' } },
);

describe('planes: permission claims in consumer clusters', () => {
  let bare: Consumer;
  const inst = (kind: string, name: string, namespace: string) =>
    getObj(p.consumer.admin, AV, kind, name, namespace);

  const p = planesFixture({
    consumers: 2,
    namespaces: ['partial', 'edit', 'scoped'],
    prepare: () => installWidgetCRD(p.consumer.admin, GADGET_GROUP),
    blueprints: [PARTIAL, editable(false), CLUSTER_SCOPED],
    finish: async () => {
      bare = p.consumers[1] as Consumer;
    },
  });

  it('unresolved type: ClaimTypeUnresolved without claims until the CRD exists; a cluster without the type is not served', async () => {
    await apply(p.management.admin, GADGETS);
    const unresolved = await waitFor(
      'ClaimTypeUnresolved',
      () => p.management.admin.getOrUndefined(BP('gadgets')),
      readyReason('ClaimTypeUnresolved'),
    );
    assert.equal(cond(unresolved, 'Ready')?.status, 'False');
    assert.match(cond(unresolved, 'Ready')?.message ?? '', /gadget/);
    const s = (unresolved.status ?? {}) as Record<string, unknown>;
    assert.equal(s.claims, undefined);
    assert.equal(s.exportedAPI, undefined);

    // The operator installs the reference CRD in the management cluster: the blueprint publishes.
    await installWidgetCRD(p.management.admin, GADGET_GROUP);
    const published = await waitPublished(p, 'gadgets');
    assert.deepEqual((published.status as { claims: unknown }).claims, [
      {
        group: GADGET_GROUP,
        resource: 'widgets',
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        scope: 'Namespaced',
      },
    ]);

    // Both consumers grant everything; only the one that serves the type is served.
    await grantPublished(p, p.consumer, 'gadgets');
    await grantPublished(p, bare, 'gadgets');
    await waitEntry(p, p.consumer, 'gadgets');
    const entry = await waitEntry(p, bare, 'gadgets', (e) => e.reason === 'ClaimTypeUnresolved');
    assert.equal(entry?.served, false);
    assert.match(entry?.message ?? '', /widgets\.x\.kgraph\.test/);
    assert.equal(p.controller.loops.has(`gadgets|${bare.name}`), false);
    assert.equal(
      await getObj(
        bare.admin,
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        exportOf(published).exportName,
      ),
      undefined,
      'no instance CRD where the blueprint is not served',
    );
    // The next resync retries: once the cluster serves the type, the blueprint is served there too.
    await installWidgetCRD(bare.admin, GADGET_GROUP);
    await waitEntry(p, bare, 'gadgets');
  });

  it('partial grant: the pre-check names the missing verbs, a full grant lets the child in, revoking blocks writes again', async () => {
    const b = await grantPublished(p, p.consumer, 'partial', { serve: true, claims: false });
    // The consumer grants configmaps with get, list and create only, in namespace `partial`.
    await apply(p.consumer.admin, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'partial-configmaps' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'] }],
    });
    await bindRole(p.consumer.admin, 'partial-configmaps', SUBJECT, ['partial']);
    await waitEntry(p, p.consumer, 'partial');
    await apply(p.consumer.admin, instanceOf('Partial', 'p', 'partial', { name: 'p', value: 'one' }));
    const blocked = await waitFor(
      'ClaimNotAccepted',
      () => inst('Partial', 'p', 'partial'),
      readyReason('ClaimNotAccepted'),
    );
    assert.match(
      cond(blocked, 'Ready')?.message ?? '',
      /resource child: claim configmaps is not accepted in namespace partial: missing verbs watch,update,patch,delete/,
    );
    assert.equal(await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'p-child', 'partial'), undefined);

    // The full generated claims role, bound in the namespace: the child appears.
    const { exportName } = exportOf(b);
    await bindRole(p.consumer.admin, roleNames(exportName).claims, SUBJECT, ['partial']);
    await waitFor('Ready', () => inst('Partial', 'p', 'partial'), readyReason('Ready'));
    const child = await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'p-child', 'partial');
    assert.deepEqual(child?.data, { value: 'one' });

    // Revoked: an edit that needs a write is blocked and names the missing verbs, whether the pre-check
    // sees the revocation first or a write the cache still allowed is refused (403) and asked again.
    await p.consumer.admin.delete({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      namespace: 'partial',
      name: bindingName(roleNames(exportName).claims),
    });
    await apply(p.consumer.admin, instanceOf('Partial', 'p', 'partial', { name: 'p', value: 'two' }));
    const again = await waitFor(
      'ClaimNotAccepted after revocation',
      () => inst('Partial', 'p', 'partial'),
      readyReason('ClaimNotAccepted', true),
    );
    assert.match(cond(again, 'Ready')?.message ?? '', /missing verbs watch,update,patch,delete/);
    await sleep(2_000); // two heartbeats
    const after = await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'p-child', 'partial');
    assert.deepEqual(after?.data, { value: 'one' });
    assert.equal(after?.metadata.resourceVersion, child?.metadata.resourceVersion);
  });

  it('new claim after an edit: the added Secret node waits for the re-applied claims role, the others keep converging', async () => {
    await grantPublished(p, p.consumer, 'editable', { serve: true, claims: ['edit'] });
    await waitEntry(p, p.consumer, 'editable');
    await apply(p.consumer.admin, instanceOf('Editable', 'e', 'edit', { name: 'e', value: 'v1' }));
    await waitFor('Ready', () => inst('Editable', 'e', 'edit'), readyReason('Ready'));
    const before = await p.management.admin.get(BP('editable'));

    // The provider adds a consumer Secret child to the live blueprint.
    await apply(p.management.admin, editable(true));
    const republished = await waitFor(
      'republished',
      () => p.management.admin.getOrUndefined(BP('editable')),
      (o) =>
        (o.status as { observedSpecHash?: string }).observedSpecHash !==
          (before.status as { observedSpecHash?: string }).observedSpecHash && readyReason('Published')(o),
    );
    assert.deepEqual(
      (republished.status as { claims: { resource: string }[] }).claims.map((x) => x.resource),
      ['configmaps', 'secrets'],
    );
    await apply(p.consumer.admin, instanceOf('Editable', 'e', 'edit', { name: 'e', value: 'v2' }));
    const waiting = await waitFor(
      'Secret node ClaimNotAccepted',
      () => inst('Editable', 'e', 'edit'),
      readyReason('ClaimNotAccepted', true),
    );
    assert.match(
      cond(waiting, 'Ready')?.message ?? '',
      /resource secret: claim secrets is not accepted in namespace edit/,
    );
    await waitFor(
      'the ConfigMap keeps converging',
      () => getObj(p.consumer.admin, 'v1', 'ConfigMap', 'e-config', 'edit'),
      (o) => (o.data as { value?: string } | undefined)?.value === 'v2',
    );
    assert.equal(await getObj(p.consumer.admin, 'v1', 'Secret', 'e-secret', 'edit'), undefined);

    // The consumer re-applies the generated claims role (now with secrets): the Secret appears.
    await grantPublished(p, p.consumer, 'editable', { serve: true, claims: ['edit'] });
    await waitFor('Ready', () => inst('Editable', 'e', 'edit'), readyReason('Ready', true));
    const secret = await getObj(p.consumer.admin, 'v1', 'Secret', 'e-secret', 'edit');
    assert.ok(secret);
    assert.equal(Buffer.from((secret.data as { value: string }).value, 'base64').toString(), 'v2');
  });

  it('cluster-scoped consumer kind: a ClusterRole child needs a ClusterRoleBinding of the claims role', async () => {
    const b = await grantPublished(p, p.consumer, 'viewers', { serve: true, claims: ['scoped'] });
    assert.deepEqual((b.status as { claims: unknown }).claims, [
      {
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        scope: 'Cluster',
      },
    ]);
    await waitEntry(p, p.consumer, 'viewers');
    await apply(p.consumer.admin, instanceOf('Viewer', 'v', 'scoped', { name: 'v' }));
    const blocked = await waitFor(
      'ClaimNotAccepted',
      () => inst('Viewer', 'v', 'scoped'),
      readyReason('ClaimNotAccepted'),
    );
    assert.match(
      cond(blocked, 'Ready')?.message ?? '',
      /claim clusterroles\.rbac\.authorization\.k8s\.io is not accepted cluster-wide: missing verbs get,list,watch,create,update,patch,delete/,
    );
    const roleName = 'scoped-v-viewer';
    const getRole = () => getObj(p.consumer.admin, 'rbac.authorization.k8s.io/v1', 'ClusterRole', roleName);
    assert.equal(await getRole(), undefined);

    await grantPublished(p, p.consumer, 'viewers', { serve: true, claims: true });
    const i = await waitFor('Ready', () => inst('Viewer', 'v', 'scoped'), readyReason('Ready'));
    const role = await getRole();
    assert.ok(role);
    assert.equal(role.metadata.labels?.['krop.opendefense.cloud/instance-uid'], i.metadata.uid);
    // A cluster-scoped child of a namespaced instance carries no owner reference (design/planes.md §13.2).
    assert.equal(role.metadata.ownerReferences, undefined);
  });
});
