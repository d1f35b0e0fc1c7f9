/**
 * The pure parts of the kcp backend: the APIBinding verdict on a claim (accepted, rejected,
 * undecided, partial verbs, identity mismatch, no binding), and the shapes published for a blueprint
 * (APIResourceSchema `v<hash>.<plural>.<group>`, APIExport claims with identity hashes).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bindingAccepts } from '../../../../src/controller/planes/kcp/access.ts';
import { KcpPlanesController } from '../../../../src/controller/planes/kcp/controller.ts';
import { apiExport, apiResourceSchema, schemaName } from '../../../../src/controller/planes/kcp/publish.ts';
import type { PublishedBlueprint } from '../../../../src/controller/planes/published.ts';
import { bindingView, type KcpBindingView } from '../../../../src/kube/kcp.ts';
import { unreachableClient } from '../../../support/unreachableClient.ts';

const CRUD = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const READ = ['get', 'list', 'watch'];

function binding(decisions: Record<string, unknown>[], exported: Record<string, unknown>[]): KcpBindingView {
  return bindingView({
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIBinding',
    metadata: { name: 'hosteddatabases', annotations: { 'kcp.io/cluster': 'c1' } },
    spec: { reference: { export: { path: 'root:provider', name: 'x' } }, permissionClaims: decisions },
    status: { phase: 'Bound', exportPermissionClaims: exported },
  });
}

describe('kcp claim acceptance (APIBinding)', () => {
  const exported = [
    { resource: 'configmaps', verbs: CRUD },
    { group: 'ec2.services.k8s.aws', resource: 'vpcs', verbs: READ, identityHash: 'h1' },
  ];
  const cm = { group: '', resource: 'configmaps' };
  const vpcs = { group: 'ec2.services.k8s.aws', resource: 'vpcs' };

  it('accepts a claim accepted with every verb and the export identity', () => {
    const b = binding(
      [
        { resource: 'configmaps', verbs: CRUD, state: 'Accepted', selector: { matchAll: true } },
        { group: vpcs.group, resource: 'vpcs', verbs: READ, identityHash: 'h1', state: 'Accepted' },
      ],
      exported,
    );
    assert.deepEqual(bindingAccepts(b, cm, CRUD, 'c1'), { accepted: true, missing: [] });
    assert.deepEqual(bindingAccepts(b, vpcs, READ, 'c1'), { accepted: true, missing: [] });
    assert.equal(b.cluster, 'c1');
  });

  it('refuses rejected, undecided, identity-mismatched and partial claims, and a missing binding', () => {
    const rejected = bindingAccepts(
      binding([{ resource: 'configmaps', verbs: CRUD, state: 'Rejected' }], exported),
      cm,
      CRUD,
      'c1',
    );
    assert.equal(rejected.accepted, false);
    assert.match(rejected.detail ?? '', /claim configmaps is rejected on APIBinding hosteddatabases/);
    const undecided = bindingAccepts(binding([], exported), vpcs, READ, 'c1');
    assert.match(undecided.detail ?? '', /vpcs\.ec2\.services\.k8s\.aws is not accepted/);
    const otherIdentity = bindingAccepts(
      binding(
        [{ group: vpcs.group, resource: 'vpcs', verbs: READ, identityHash: 'h2', state: 'Accepted' }],
        exported,
      ),
      vpcs,
      READ,
      'c1',
    );
    assert.equal(otherIdentity.accepted, false);
    const partial = bindingAccepts(
      binding([{ resource: 'configmaps', verbs: ['get', 'list', 'create'], state: 'Accepted' }], exported),
      cm,
      CRUD,
      'c1',
    );
    assert.deepEqual(partial.missing, ['watch', 'update', 'patch', 'delete']);
    const none = bindingAccepts(undefined, cm, CRUD, 'c9');
    assert.match(none.detail ?? '', /logical cluster c9 has no APIBinding/);
    const notYet = bindingAccepts(binding([], []), cm, CRUD, 'c1');
    assert.match(notYet.detail ?? '', /does not list claim configmaps yet/);
  });
});

describe('kcp publication shapes', () => {
  const bp = {
    name: 'hosteddatabase',
    specHash: '0123456789ab',
    exportName: 'hosteddatabases.krop.opendefense.cloud',
    group: 'krop.opendefense.cloud',
    plural: 'hosteddatabases',
    crd: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'hosteddatabases.krop.opendefense.cloud' },
      spec: {
        group: 'krop.opendefense.cloud',
        names: { plural: 'hosteddatabases', kind: 'HostedDatabase' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1alpha1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object' } },
            subresources: { status: {} },
          },
        ],
      },
    },
  } as unknown as PublishedBlueprint;

  it('names the schema v<specHash>.<plural>.<group> and carries the CRD versions with their bare schemas', () => {
    assert.equal(schemaName(bp), 'v0123456789ab.hosteddatabases.krop.opendefense.cloud');
    const ars = apiResourceSchema(bp);
    const spec = ars.spec as { versions: { schema: unknown; subresources: unknown }[]; scope: string };
    assert.equal(spec.scope, 'Namespaced');
    assert.deepEqual(spec.versions[0]?.schema, { type: 'object' });
    assert.deepEqual(spec.versions[0]?.subresources, { status: {} });
    assert.equal(ars.metadata.annotations?.['krop.opendefense.cloud/spec-hash'], '0123456789ab');
  });

  it('exports the one resource with the derived claims and their identity hashes', () => {
    const exp = apiExport(bp, [
      {
        group: '',
        resource: 'configmaps',
        verbs: CRUD,
        scope: 'Namespaced',
        apiVersion: 'v1',
        kind: 'ConfigMap',
        identityHash: '',
      },
      {
        group: 'ec2.services.k8s.aws',
        resource: 'vpcs',
        verbs: READ,
        scope: 'Namespaced',
        apiVersion: 'ec2.services.k8s.aws/v1alpha1',
        kind: 'VPC',
        identityHash: 'h1',
      },
    ]);
    assert.equal(exp.metadata.name, 'hosteddatabases.krop.opendefense.cloud');
    assert.deepEqual(exp.spec, {
      resources: [
        {
          name: 'hosteddatabases',
          group: 'krop.opendefense.cloud',
          schema: 'v0123456789ab.hosteddatabases.krop.opendefense.cloud',
          storage: { crd: {} },
        },
      ],
      permissionClaims: [
        { group: '', resource: 'configmaps', verbs: CRUD, identityHash: '' },
        { group: 'ec2.services.k8s.aws', resource: 'vpcs', verbs: READ, identityHash: 'h1' },
      ],
    });
  });
});

describe('kcp planes controller: sweep authority (design/planes.md §13.4)', () => {
  // Nothing is sent: the controller is only constructed, and the sweeper asked whether it may sweep.
  const provider = unreachableClient();
  after(() => provider.close());

  it('refuses to sweep without authority, as the plain-cluster planes do, and follows the Lease', () => {
    assert.match(
      new KcpPlanesController({ provider, sweepAuthority: { none: true } }).sweeper.refusal() ?? '',
      /no sweep authority/,
    );
    let leading = false;
    const led = new KcpPlanesController({ provider, sweepAuthority: { isLeader: () => leading } });
    assert.equal(led.sweeper.refusal(), 'not the leader');
    leading = true;
    assert.equal(led.sweeper.refusal(), undefined);
    assert.equal(
      new KcpPlanesController({ provider, sweepAuthority: { singleReplica: true } }).sweeper.refusal(),
      undefined,
    );
  });
});
