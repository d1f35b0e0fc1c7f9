// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Claim derivation (design/planes.md §10.1), the generated roles (design/planes.md §10.2), the explicit
 * namespace rule (design/planes.md §2.3), the spec hash (design/planes.md §2.5) and the routing split (design/planes.md §2.4).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deriveClaims, generatedRoles, publishedClaim } from '../../../../src/controller/planes/claims.ts';
import { explicitNamespaceProblems } from '../../../../src/controller/planes/registrar.ts';
import {
  blueprintSpecHash,
  canonicalJson,
  splitRouting,
} from '../../../../src/controller/planes/specHash.ts';
import { compileYaml } from '../../../../src/graph/index.ts';
import type { CompiledGraph } from '../../../../src/graph/model.ts';
import { typecheckGraph } from '../../../../src/graph/typecheck.ts';
import { offlineResolver } from '../../graph/support.ts';

function compile(resources: string): CompiledGraph {
  const text = `apiVersion: krop.opendefense.cloud/v1alpha1
kind: ResourceGraphDefinition
metadata: {name: demo}
spec:
  schema:
    apiVersion: v1alpha1
    kind: Demo
    group: krop.opendefense.cloud
    spec: {name: string}
  resources:
${resources}`;
  const [r] = compileYaml('demo.yaml', text, { resolver: offlineResolver(), typecheck: typecheckGraph });
  assert.ok(r?.graph, JSON.stringify(r?.diagnostics));
  return r.graph;
}

const INSTANCE = { group: 'krop.opendefense.cloud', plural: 'demos', kind: 'Demo' };
const CRUD = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

describe('planes claims', () => {
  it('one claim per GroupResource, verbs merged, sorted; none for provider/host or the instance GR', () => {
    const g = compile(`
    - id: cfg
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}, data: {a: b}}
    - id: cfgRead
      externalRef: {apiVersion: v1, kind: ConfigMap, metadata: {name: other}}
    - id: sec
      target: consumer
      externalRef: {apiVersion: v1, kind: Secret, metadata: {name: s}}
    - id: prov
      target: provider
      template: {apiVersion: v1, kind: Secret, metadata: {name: p, namespace: default}}
    - id: hostRead
      target: host
      externalRef: {apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: default}}
    - id: self
      externalRef: {apiVersion: krop.opendefense.cloud/v1alpha1, kind: Demo, metadata: {name: x}}
`);
    const { claims, problems } = deriveClaims(g, INSTANCE);
    assert.deepEqual(problems, []);
    assert.deepEqual(claims.map(publishedClaim), [
      { group: '', resource: 'configmaps', verbs: CRUD, scope: 'Namespaced' },
      { group: '', resource: 'secrets', verbs: ['get', 'list', 'watch'], scope: 'Namespaced' },
    ]);
  });

  it('generated roles: serving role scoped to the export name, claims role one rule per claim', () => {
    const g = compile(`
    - id: cfg
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}}
`);
    const { claims } = deriveClaims(g, INSTANCE);
    const [serve, claimsRole] = generatedRoles('demos.krop.opendefense.cloud', INSTANCE, claims);
    assert.equal(serve?.metadata.name, 'kgraph:demos.krop.opendefense.cloud:serve');
    assert.ok(
      serve?.rules.some(
        (r) =>
          r.resources[0] === 'customresourcedefinitions' &&
          r.resourceNames?.[0] === 'demos.krop.opendefense.cloud',
      ),
    );
    assert.ok(serve?.rules.some((r) => r.resources[0] === 'demos/status'));
    assert.equal(claimsRole?.metadata.name, 'kgraph:demos.krop.opendefense.cloud:claims');
    assert.deepEqual(claimsRole?.rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: CRUD }]);
  });

  it('provider and host namespaced children must name their namespace (design/planes.md §2.3)', () => {
    const g = compile(`
    - id: prov
      target: provider
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: p}}
    - id: hostOk
      target: host
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: h, namespace: "\${schema.spec.name}"}}
    - id: consumerOk
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
    - id: clusterScoped
      target: provider
      template: {apiVersion: v1, kind: Namespace, metadata: {name: n}}
`);
    assert.deepEqual(explicitNamespaceProblems(g), [
      'resource prov: a provider-target ConfigMap must set metadata.namespace',
    ]);
  });

  it('spec hash: 12 hex, key order irrelevant, a target flip changes it (design/planes.md §2.5)', () => {
    const a = { schema: { kind: 'Demo', apiVersion: 'v1alpha1' }, resources: [{ id: 'x', template: {} }] };
    const b = { resources: [{ template: {}, id: 'x' }], schema: { apiVersion: 'v1alpha1', kind: 'Demo' } };
    assert.match(blueprintSpecHash(a), /^[0-9a-f]{12}$/);
    assert.equal(blueprintSpecHash(a), blueprintSpecHash(b));
    assert.equal(
      canonicalJson(b),
      '{"resources":[{"id":"x","template":{}}],"schema":{"apiVersion":"v1alpha1","kind":"Demo"}}',
    );
    const flipped = { ...a, resources: [{ id: 'x', target: 'provider', template: {} }] };
    assert.notEqual(blueprintSpecHash(flipped), blueprintSpecHash(a));
  });

  it('routing split: only non-empty targets, invalid ones reported (design/planes.md §2.4)', () => {
    const { routing, invalid } = splitRouting({
      resources: [
        { id: 'a' },
        { id: 'b', target: '' },
        { id: 'c', target: 'host' },
        { id: 'd', target: 'edge' },
      ],
    });
    assert.deepEqual([...routing], [['c', 'host']]);
    assert.deepEqual(invalid, [{ id: 'd', target: 'edge' }]);
  });
});
