import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BundleSchemaSource, loadBundle } from '../../../src/schema/sources/bundle.ts';
import { inlineRefs } from '../../../src/schema/sources/openapiDocs.ts';
import { createSchemaResolver, toKindLookup } from '../../../src/schema/sources/resolver.ts';
import { isUnknownKind } from '../../../src/schema/sources/types.ts';

describe('the committed offline bundle (schema-data/kubernetes-builtin.json.gz)', () => {
  const bundle = loadBundle();

  it('is the Kubernetes 1.37 built-in API set', () => {
    assert.match(bundle.kubernetesVersion, /^v1\.37\./);
    const kinds = new Set(bundle.kinds.map((k) => `${k.group}/${k.version}/${k.kind}`));
    for (const k of [
      '/v1/ConfigMap',
      '/v1/Secret',
      '/v1/Service',
      '/v1/Namespace',
      '/v1/ServiceAccount',
      'apps/v1/Deployment',
      'apps/v1/StatefulSet',
      'batch/v1/Job',
      'networking.k8s.io/v1/Ingress',
      'rbac.authorization.k8s.io/v1/ClusterRole',
      'apiextensions.k8s.io/v1/CustomResourceDefinition',
    ]) {
      assert.ok(kinds.has(k), k);
    }
  });

  it('holds no descriptions, and every reference resolves', () => {
    const text = JSON.stringify(bundle.schemas);
    assert.equal(/"description":"/.test(text), false);
    for (const m of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      assert.ok(bundle.schemas[m[1]!], m[1]);
    }
  });

  it('resolves scope and plural from discovery', () => {
    const source = new BundleSchemaSource(bundle);
    assert.equal(source.lookup('', 'v1', 'ConfigMap')?.namespaced, true);
    assert.equal(source.lookup('', 'v1', 'Namespace')?.namespaced, false);
    assert.equal(source.lookup('rbac.authorization.k8s.io', 'v1', 'ClusterRole')?.namespaced, false);
    assert.equal(source.lookup('networking.k8s.io', 'v1', 'Ingress')?.plural, 'ingresses');
  });

  it('gives the compiler typed, inlined schemas through the default resolver', () => {
    const lookup = toKindLookup(createSchemaResolver().resolver);
    const deploy = lookup.lookup('apps/v1', 'Deployment');
    assert.equal(deploy?.scope, 'Namespaced');
    const spec = deploy?.schema?.properties?.spec;
    assert.equal(spec?.properties?.replicas?.type, 'integer');
    const container = spec?.properties?.template?.properties?.spec?.properties?.containers?.items;
    assert.equal(container?.properties?.image?.type, 'string');
    assert.equal(container?.properties?.ports?.items?.properties?.containerPort?.type, 'integer');
    assert.deepEqual(deploy?.schema?.properties?.metadata?.properties?.labels?.additionalProperties, {
      type: 'string',
    });
    const svcPort = lookup.lookup('v1', 'Service')?.schema?.properties?.spec?.properties?.ports?.items;
    assert.equal(svcPort?.properties?.targetPort?.format, 'int-or-string');
  });

  it('cuts the recursive CRD schema type (JSONSchemaProps) to untyped', () => {
    const source = new BundleSchemaSource(bundle);
    const crd = source.lookup('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition')!;
    const inlined = inlineRefs(crd.schema, crd.components);
    const props =
      inlined.properties?.spec?.properties?.versions?.items?.properties?.schema?.properties?.openAPIV3Schema;
    assert.equal(props?.type, 'object');
    assert.deepEqual(props?.properties?.properties?.additionalProperties, {
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('an unknown kind is reported, with other versions of the kind', () => {
    const { resolver } = createSchemaResolver();
    const r = resolver.resolve('apps/v1beta2', 'Deployment');
    assert.ok(isUnknownKind(r));
    assert.match(r.reason, /unknown kind Deployment in apps\/v1beta2/);
    assert.match(r.reason, /Deployment exists in apps\/v1/);
  });
});
