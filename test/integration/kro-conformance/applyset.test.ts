// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's ApplySet scenarios (kro applyset_test.go), ported: the instance is the KEP ApplySet parent (id
 * label, tooling, GroupKinds and additional-namespaces annotations) and its children members with kro's
 * labels; the GroupKinds shrink when an includeWhen turns false and its object is pruned. The version label
 * and the tooling annotation carry kgraph's version where kro writes its own (deliberate: they name the
 * writer, as in annotation_label_test.go).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APPLYSET_TOOLING, applySetId, KGRAPH_VERSION } from '../../../src/controller/rgd/names.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  eventually,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { absent, deployRef, handStatusFixture, holdsFor, present, type Ref, staysAbsent } from './support.ts';

describe('kro conformance: ApplySet', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-applyset');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const define = async (name: string, schema: Record<string, unknown>, resources: unknown[]) => {
    await applyRgd(client, rgd(f, name, schema, resources));
    const r = await waitRgd(client, name, 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
  };
  const ref = (apiVersion: string, kind: string, name: string): Ref => ({
    apiVersion,
    kind,
    namespace: f.ns,
    name,
  });
  const gks = (o: KubeObject) =>
    (o.metadata.annotations?.['applyset.kubernetes.io/contains-group-kinds'] ?? '').split(',').sort();
  /** kro's verifyChildResourceLabelsWithNodeID. */
  const memberOf = (child: KubeObject, id: string, parent: KubeObject, node: string) => {
    const l = child.metadata.labels ?? {};
    assert.equal(l['applyset.kubernetes.io/part-of'], id);
    assert.equal(l['kro.run/owned'], 'true');
    assert.equal(l['kro.run/kro-version'], KGRAPH_VERSION);
    assert.equal(l['app.kubernetes.io/managed-by'], 'kro');
    assert.equal(l['kro.run/instance-id'], parent.metadata.uid);
    assert.equal(l['kro.run/instance-name'], parent.metadata.name);
    assert.equal(l['kro.run/instance-namespace'], parent.metadata.namespace);
    assert.equal('kro.run/resource-graph-definition-id' in l, false);
    assert.equal('kro.run/resource-graph-definition-name' in l, false);
    assert.equal(l['kro.run/node-id'], node);
  };
  const parentAnnotations = (o: KubeObject, kinds: string[], kind: string) => {
    const a = o.metadata.annotations ?? {};
    assert.equal(a['applyset.kubernetes.io/tooling'], APPLYSET_TOOLING);
    assert.deepEqual(gks(o), kinds);
    assert.equal(a['applyset.kubernetes.io/additional-namespaces'], '');
    assert.equal(
      o.metadata.labels?.['applyset.kubernetes.io/id'],
      applySetId(o.metadata.name ?? '', f.ns, kind, f.group),
    );
  };

  it('applies resources with correct KEP applyset labels and annotations', async () => {
    const kind = 'ApplySetMultiGVK';
    await define('test-applyset-multi-gvk', { kind, spec: { name: 'string' } }, [
      {
        id: 'configMap',
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: '${schema.spec.name}-cm' },
          data: { key: 'value' },
        },
      },
      {
        id: 'secret',
        template: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: '${schema.spec.name}-secret' },
          stringData: { password: 'secret123' },
        },
      },
      {
        id: 'serviceAccount',
        template: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: '${schema.spec.name}-sa' } },
      },
    ]);
    await applyInstance(client, instance(f, kind, 'test-multi', { name: 'multi' }));
    const parent = await waitState(client, f, kind, 'test-multi', 'ACTIVE', (o) => gks(o).length === 3);
    parentAnnotations(parent, ['ConfigMap', 'Secret', 'ServiceAccount'], kind);
    const id = applySetId('test-multi', f.ns, kind, f.group);
    memberOf(await present(client, ref('v1', 'ConfigMap', 'multi-cm')), id, parent, 'configMap');
    memberOf(await present(client, ref('v1', 'Secret', 'multi-secret')), id, parent, 'secret');
    memberOf(await present(client, ref('v1', 'ServiceAccount', 'multi-sa')), id, parent, 'serviceAccount');
  });

  it('prunes resources when includeWhen becomes false', async () => {
    const kind = 'ApplySetPrune';
    await define('test-applyset-prune', { kind, spec: { name: 'string', includeSecret: 'boolean' } }, [
      {
        id: 'configMap',
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: '${schema.spec.name}-cm' },
          data: { key: 'always-present' },
        },
      },
      {
        id: 'secret',
        template: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: '${schema.spec.name}-secret' },
          stringData: { password: 'conditional' },
        },
        includeWhen: ['${schema.spec.includeSecret}'],
      },
    ]);
    await applyInstance(client, instance(f, kind, 'test-prune', { name: 'prune', includeSecret: true }));
    await present(client, ref('v1', 'ConfigMap', 'prune-cm'));
    await present(client, ref('v1', 'Secret', 'prune-secret'));
    const both = await eventually('parent lists ConfigMap and Secret', async () => {
      const o = await getInstance(client, f, kind, 'test-prune');
      return o && gks(o).length === 2 ? o : undefined;
    });
    parentAnnotations(both, ['ConfigMap', 'Secret'], kind);
    await applyInstance(client, instance(f, kind, 'test-prune', { name: 'prune', includeSecret: false }));
    await absent(client, ref('v1', 'Secret', 'prune-secret'));
    await present(client, ref('v1', 'ConfigMap', 'prune-cm'));
    const shrunk = await eventually('parent lists only ConfigMap', async () => {
      const o = await getInstance(client, f, kind, 'test-prune');
      return o?.metadata.annotations?.['applyset.kubernetes.io/contains-group-kinds'] === 'ConfigMap'
        ? o
        : undefined;
    });
    parentAnnotations(shrunk, ['ConfigMap'], kind);
  });

  const cmNode = (id: string, name: string, data: Record<string, string>, includeWhen?: string) => ({
    id,
    template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data },
    ...(includeWhen ? { includeWhen: [includeWhen] } : {}),
  });

  it('resolves includeWhen from upstream resources and prunes when they flip', async () => {
    const kind = 'ApplySetUpstreamIncludeWhen';
    await define(
      'test-applyset-upstream-includewhen',
      { kind, spec: { name: 'string', enableDependent: 'boolean' } },
      [
        cmNode('source', '${schema.spec.name}-source', {
          enabled: "${schema.spec.enableDependent ? 'true' : 'false'}",
        }),
        cmNode(
          'dependent',
          '${schema.spec.name}-dependent',
          { key: 'created-from-upstream-condition' },
          "${source.data.enabled == 'true'}",
        ),
      ],
    );
    await applyInstance(
      client,
      instance(f, kind, 'test-upstream-condition', { name: 'upstream', enableDependent: true }),
    );
    await present(
      client,
      ref('v1', 'ConfigMap', 'upstream-source'),
      (o) => (o.data as Record<string, string>)?.enabled === 'true',
    );
    await present(client, ref('v1', 'ConfigMap', 'upstream-dependent'));
    await applyInstance(
      client,
      instance(f, kind, 'test-upstream-condition', { name: 'upstream', enableDependent: false }),
    );
    await present(
      client,
      ref('v1', 'ConfigMap', 'upstream-source'),
      (o) => (o.data as Record<string, string>)?.enabled === 'false',
    );
    await absent(client, ref('v1', 'ConfigMap', 'upstream-dependent'));
  });

  it('prunes downstream dependents when a resource-backed includeWhen flips false', async () => {
    const kind = 'ApplySetUpstreamContagiousPrune';
    await define(
      'test-applyset-upstream-contagious-prune',
      { kind, spec: { name: 'string', enableMiddle: 'boolean' } },
      [
        cmNode('source', '${schema.spec.name}-source', {
          enabled: "${schema.spec.enableMiddle ? 'true' : 'false'}",
        }),
        cmNode(
          'middle',
          '${schema.spec.name}-middle',
          { value: 'middle' },
          "${source.data.enabled == 'true'}",
        ),
        cmNode('child', '${middle.metadata.name}-child', { fromMiddle: '${middle.data.value}' }),
      ],
    );
    const name = 'test-upstream-contagious-prune';
    await applyInstance(client, instance(f, kind, name, { name: 'upstream-contagious', enableMiddle: true }));
    for (const n of [
      'upstream-contagious-source',
      'upstream-contagious-middle',
      'upstream-contagious-middle-child',
    ]) {
      await present(client, ref('v1', 'ConfigMap', n));
    }
    await applyInstance(
      client,
      instance(f, kind, name, { name: 'upstream-contagious', enableMiddle: false }),
    );
    await present(
      client,
      ref('v1', 'ConfigMap', 'upstream-contagious-source'),
      (o) => (o.data as Record<string, string>)?.enabled === 'false',
    );
    await absent(client, ref('v1', 'ConfigMap', 'upstream-contagious-middle'));
    await absent(client, ref('v1', 'ConfigMap', 'upstream-contagious-middle-child'));
  });

  it('grows the GroupKinds annotation when resources are added and shrinks it when they are removed', async () => {
    const kind = 'AnnotationTracking';
    await define(
      'test-annotation-tracking',
      { kind, spec: { name: 'string', includeSecret: 'boolean', includeSA: 'boolean' } },
      [
        cmNode('configMap', '${schema.spec.name}-cm', { key: 'always-present' }),
        {
          id: 'secret',
          template: {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: '${schema.spec.name}-secret' },
            stringData: { password: 'conditional' },
          },
          includeWhen: ['${schema.spec.includeSecret}'],
        },
        {
          id: 'serviceAccount',
          template: {
            apiVersion: 'v1',
            kind: 'ServiceAccount',
            metadata: { name: '${schema.spec.name}-sa' },
          },
          includeWhen: ['${schema.spec.includeSA}'],
        },
      ],
    );
    const name = 'test-tracking';
    const phase = async (includeSecret: boolean, includeSA: boolean, want: string[]) => {
      await applyInstance(client, instance(f, kind, name, { name: 'track', includeSecret, includeSA }));
      const secret = ref('v1', 'Secret', 'track-secret');
      const sa = ref('v1', 'ServiceAccount', 'track-sa');
      await (includeSecret ? present(client, secret) : absent(client, secret));
      await (includeSA ? present(client, sa) : absent(client, sa));
      await eventually(`GroupKinds ${want.join(',')}`, async () => {
        const o = await getInstance(client, f, kind, name);
        return o && gks(o).join(',') === want.join(',') ? true : undefined;
      });
    };
    await phase(false, false, ['ConfigMap']);
    await waitState(client, f, kind, name, 'ACTIVE');
    await phase(true, false, ['ConfigMap', 'Secret']);
    await phase(true, true, ['ConfigMap', 'Secret', 'ServiceAccount']);
    await phase(false, true, ['ConfigMap', 'ServiceAccount']);
    await phase(false, false, ['ConfigMap']);
    await present(client, ref('v1', 'ConfigMap', 'track-cm'));
  });

  const values = async (kind: string, rgdName: string, id: string, k: 'ConfigMap' | 'Secret') => {
    const body =
      k === 'ConfigMap' ? { data: { value: '${element}' } } : { stringData: { value: '${element}' } };
    await define(rgdName, { kind, spec: { name: 'string', values: '[]string' } }, [
      {
        id,
        forEach: [{ element: '${schema.spec.values}' }],
        template: {
          apiVersion: 'v1',
          kind: k,
          metadata: { name: '${schema.spec.name}-${element}' },
          ...body,
        },
      },
    ]);
  };
  const item = (o: KubeObject, index: number, size: number) => {
    assert.equal(o.metadata.labels?.['kro.run/collection-index'], String(index));
    assert.equal(o.metadata.labels?.['kro.run/collection-size'], String(size));
  };

  it('applies collection-specific labels to forEach resources', async () => {
    const kind = 'ApplySetCollection';
    await values(kind, 'test-applyset-collection', 'configmaps', 'ConfigMap');
    await applyInstance(
      client,
      instance(f, kind, 'test-collection', { name: 'coll', values: ['alpha', 'beta', 'gamma'] }),
    );
    const parent = await waitState(
      client,
      f,
      kind,
      'test-collection',
      'ACTIVE',
      (o) => gks(o).join(',') === 'ConfigMap',
    );
    parentAnnotations(parent, ['ConfigMap'], kind);
    const id = applySetId('test-collection', f.ns, kind, f.group);
    for (const [i, v] of ['alpha', 'beta', 'gamma'].entries()) {
      const o = await present(client, ref('v1', 'ConfigMap', `coll-${v}`));
      memberOf(o, id, parent, 'configmaps');
      item(o, i, 3);
    }
  });

  it('prunes collection items when the collection shrinks', async () => {
    const kind = 'ApplySetCollPrune';
    await values(kind, 'test-applyset-coll-prune', 'secrets', 'Secret');
    const name = 'test-coll-prune';
    await applyInstance(client, instance(f, kind, name, { name: 'shrink', values: ['one', 'two', 'three'] }));
    for (const v of ['one', 'two', 'three']) await present(client, ref('v1', 'Secret', `shrink-${v}`));
    await applyInstance(client, instance(f, kind, name, { name: 'shrink', values: ['one'] }));
    for (const v of ['two', 'three']) await absent(client, ref('v1', 'Secret', `shrink-${v}`));
    const parent = (await getInstance(client, f, kind, name)) as KubeObject;
    const one = await present(
      client,
      ref('v1', 'Secret', 'shrink-one'),
      (o) => o.metadata.labels?.['kro.run/collection-size'] === '1',
    );
    memberOf(one, applySetId(name, f.ns, kind, f.group), parent, 'secrets');
    item(one, 0, 1);
  });

  const cmTemplate = (suffix: string, data: Record<string, string>) => ({
    id: 'configMap',
    template: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `\${schema.spec.name}${suffix}` },
      data,
    },
  });
  const touch = (kind: string, name: string, key: string) =>
    client.patch(
      { apiVersion: `${f.group}/v1alpha1`, kind, namespace: f.ns, name },
      { metadata: { annotations: { [key]: 'reconcile' } } },
      { type: 'merge' },
    );
  const staysMember = (name: string, id: string) =>
    holdsFor(
      `${name} kept in its ApplySet`,
      async () => {
        const o = await client.getOrUndefined(ref('v1', 'ConfigMap', name));
        return o?.metadata.labels?.['applyset.kubernetes.io/part-of'] === id;
      },
      5_000,
    );

  it('does not prune resources from different RGDs', async () => {
    await define('test-isolation-rgd1', { kind: 'IsolationRGD1', spec: { name: 'string' } }, [
      cmTemplate('-rgd1-cm', { source: 'rgd1' }),
    ]);
    await define('test-isolation-rgd2', { kind: 'IsolationRGD2', spec: { name: 'string' } }, [
      cmTemplate('-rgd2-cm', { source: 'rgd2' }),
    ]);
    await applyInstance(client, instance(f, 'IsolationRGD1', 'test-iso1', { name: 'shared' }));
    await applyInstance(client, instance(f, 'IsolationRGD2', 'test-iso1', { name: 'shared' }));
    await waitState(client, f, 'IsolationRGD1', 'test-iso1', 'ACTIVE');
    await waitState(client, f, 'IsolationRGD2', 'test-iso1', 'ACTIVE');
    const id1 = applySetId('test-iso1', f.ns, 'IsolationRGD1', f.group);
    const id2 = applySetId('test-iso1', f.ns, 'IsolationRGD2', f.group);
    assert.notEqual(id1, id2);
    await present(
      client,
      ref('v1', 'ConfigMap', 'shared-rgd1-cm'),
      (o) => o.metadata.labels?.['applyset.kubernetes.io/part-of'] === id1,
    );
    await present(
      client,
      ref('v1', 'ConfigMap', 'shared-rgd2-cm'),
      (o) => o.metadata.labels?.['applyset.kubernetes.io/part-of'] === id2,
    );
    await touch('IsolationRGD1', 'test-iso1', 'test-trigger');
    await staysMember('shared-rgd2-cm', id2);
  });

  it('does not prune resources from different instances of the same RGD', async () => {
    const kind = 'IsolationInstances';
    await define('test-isolation-instances', { kind, spec: { name: 'string' } }, [
      cmTemplate('-cm', { instance: '${schema.spec.name}' }),
    ]);
    for (const name of ['instance-a', 'instance-b'])
      await applyInstance(client, instance(f, kind, name, { name }));
    for (const name of ['instance-a', 'instance-b']) await waitState(client, f, kind, name, 'ACTIVE');
    const idA = applySetId('instance-a', f.ns, kind, f.group);
    const idB = applySetId('instance-b', f.ns, kind, f.group);
    assert.notEqual(idA, idB);
    await present(
      client,
      ref('v1', 'ConfigMap', 'instance-a-cm'),
      (o) => o.metadata.labels?.['applyset.kubernetes.io/part-of'] === idA,
    );
    await present(
      client,
      ref('v1', 'ConfigMap', 'instance-b-cm'),
      (o) => o.metadata.labels?.['applyset.kubernetes.io/part-of'] === idB,
    );
    await touch(kind, 'instance-a', 'test-trigger');
    await staysMember('instance-b-cm', idB);
    for (const name of ['instance-a', 'instance-b']) {
      const o = await eventually(`${name} parent annotations`, async () => {
        const got = await getInstance(client, f, kind, name);
        return got?.metadata.annotations?.['applyset.kubernetes.io/contains-group-kinds'] === 'ConfigMap'
          ? got
          : undefined;
      });
      assert.equal(o.metadata.annotations?.['applyset.kubernetes.io/tooling'], APPLYSET_TOOLING);
      assert.equal(o.metadata.labels?.['applyset.kubernetes.io/id'], applySetId(name, f.ns, kind, f.group));
    }
  });

  it('preserves user-defined labels and annotations on the instance after reconciliation', async () => {
    const kind = 'LabelPreserve';
    await define('test-label-preserve', { kind, spec: { name: 'string' } }, [
      cmTemplate('-cm', { key: 'value' }),
    ]);
    const labels = { 'custom-label': 'custom-value', 'app.kubernetes.io/team': 'platform' };
    const annotations = {
      'custom-annotation': 'custom-annotation-value',
      description: 'This is a test instance',
    };
    await client.create(instance(f, kind, 'test-preserve', { name: 'preserve' }, { labels, annotations }));
    const check = (o: KubeObject) => {
      for (const [k, v] of Object.entries(labels)) assert.equal(o.metadata.labels?.[k], v, k);
      for (const [k, v] of Object.entries(annotations)) assert.equal(o.metadata.annotations?.[k], v, k);
      assert.equal(
        o.metadata.labels?.['applyset.kubernetes.io/id'],
        applySetId('test-preserve', f.ns, kind, f.group),
      );
      assert.equal(o.metadata.annotations?.['applyset.kubernetes.io/tooling'], APPLYSET_TOOLING);
      assert.equal(o.metadata.annotations?.['applyset.kubernetes.io/contains-group-kinds'], 'ConfigMap');
    };
    check(
      await waitState(client, f, kind, 'test-preserve', 'ACTIVE', (o) => gks(o).join(',') === 'ConfigMap'),
    );
    await touch(kind, 'test-preserve', 'reconcile-trigger');
    check(
      await eventually('the second reconcile seen', async () => {
        const o = await getInstance(client, f, kind, 'test-preserve');
        return o?.metadata.annotations?.['reconcile-trigger'] ? o : undefined;
      }),
    );
    await new Promise((r) => setTimeout(r, 2_000));
    check((await getInstance(client, f, kind, 'test-preserve')) as KubeObject);
  });
});

describe('kro conformance: ApplySet, status-backed includeWhen', () => {
  type Hand = Awaited<ReturnType<typeof handStatusFixture>>;
  let h: Hand;
  let client: RestClient;

  before(async () => {
    h = await handStatusFixture('kro-applyset-st');
    client = h.client;
  });
  after(() => h.stop());

  it('prunes status-backed includeWhen dependents when the upstream status flips false', async () => {
    const kind = 'ApplySetStatusIncludeWhen';
    await applyRgd(
      client,
      rgd(h, 'test-applyset-status-includewhen', { kind, spec: { name: 'string' } }, [
        {
          id: 'source',
          template: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: '${schema.spec.name}-source' },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: '${schema.spec.name}' } },
              template: {
                metadata: { labels: { app: '${schema.spec.name}' } },
                spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
              },
            },
          },
        },
        {
          id: 'dependent',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${schema.spec.name}-dependent' },
            data: { key: 'status-backed' },
          },
          includeWhen: ["${source.status.conditions[0].status == 'True'}"],
        },
      ]),
    );
    await waitRgd(client, 'test-applyset-status-includewhen', 'Ready', 'True');
    const name = 'test-status-condition';
    await applyInstance(client, instance(h, kind, name, { name: 'status-condition' }));
    const source = await present(client, deployRef(h.ns, 'status-condition-source'));
    assert.equal((source.spec as { replicas?: number }).replicas, 1);
    const dependent = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: h.ns,
      name: 'status-condition-dependent',
    };
    await staysAbsent(client, dependent, 3_000);
    const setAvailable = async (status: 'True' | 'False') => {
      const d = await client.get(deployRef(h.ns, 'status-condition-source'));
      const cond =
        status === 'True'
          ? {
              type: 'Available',
              status,
              reason: 'MinimumReplicasAvailable',
              message: 'Deployment has minimum availability.',
            }
          : {
              type: 'Available',
              status,
              reason: 'ProgressDeadlineExceeded',
              message: 'Deployment is not available.',
            };
      await client.update({ ...d, status: { conditions: [cond] } }, { subresource: 'status' });
    };
    await setAvailable('True');
    await present(client, dependent, (o) => (o.data as Record<string, string>)?.key === 'status-backed');
    await waitState(client, h, kind, name, 'ACTIVE');
    await setAvailable('False');
    await absent(client, dependent);
  });
});
