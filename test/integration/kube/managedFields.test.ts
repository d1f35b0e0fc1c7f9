import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyWouldChange, ownedFields } from '../../../src/kube/managedFields.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { configMap, installWidgetCRD, testClient, testNamespace } from '../../support/kube.ts';

let client: RestClient;
let ns: string;
before(async () => {
  client = await testClient();
  ns = await testNamespace('mf');
});
after(() => client.close());

const M = 'kgraph-mf';

function deployment(image: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: ns, labels: { app: 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'app',
              image,
              args: ['--port', '8080'],
              ports: [{ containerPort: 8080 }],
              env: [{ name: 'A', value: '1' }],
              resources: { limits: { cpu: '500m', memory: '64Mi' } },
              ...extra,
            },
          ],
        },
      },
    },
  };
}

describe('applyWouldChange on real managedFields', () => {
  it('a ConfigMap: unchanged, changed value, dropped field, other managers ignored', async () => {
    const desired = configMap(ns, 'cm', { a: '1', b: '2' }, { team: 'x' });
    assert.equal(applyWouldChange(desired, undefined, M).changed, true);
    const observed = await client.apply(desired, { fieldManager: M });
    assert.ok(ownedFields(observed, M));
    assert.deepEqual(applyWouldChange(desired, observed, M), { changed: false });

    const changed = applyWouldChange(configMap(ns, 'cm', { a: '1', b: '3' }, { team: 'x' }), observed, M);
    assert.equal(changed.changed, true);
    assert.equal(changed.path, '.data.b');
    assert.equal(
      applyWouldChange(configMap(ns, 'cm', { a: '1' }, { team: 'x' }), observed, M).path,
      '.data.b',
    );
    assert.equal(applyWouldChange(configMap(ns, 'cm', { a: '1', b: '2' }), observed, M).changed, true);
    assert.equal(
      applyWouldChange(configMap(ns, 'cm', { a: '1', b: '2', c: '4' }, { team: 'x' }), observed, M).path,
      '.data.c',
    );
    assert.equal(applyWouldChange(desired, observed, 'someone-else').changed, true);

    const touched = await client.apply(configMap(ns, 'cm', { other: 'y' }), {
      fieldManager: 'other-manager',
    });
    assert.deepEqual(
      applyWouldChange(desired, touched, M),
      { changed: false },
      'other managers do not matter',
    );
    // A field of ours overwritten by someone else (force) is a change to repair.
    const stolen = await client.apply(configMap(ns, 'cm', { a: 'stolen' }), {
      fieldManager: 'thief',
      force: true,
    });
    assert.equal(applyWouldChange(desired, stolen, M).changed, true);
  });

  it('a Deployment with keyed lists, defaulted key fields, atomic lists and quantities', async () => {
    const desired = deployment('nginx:1');
    const observed = await client.apply(desired, { fieldManager: M });
    assert.deepEqual(applyWouldChange(desired, observed, M), { changed: false });
    const img = applyWouldChange(deployment('nginx:2'), observed, M);
    assert.equal(img.changed, true);
    assert.equal(img.path, '.spec.template.spec.containers[0].image');
    assert.equal(
      applyWouldChange(deployment('nginx:1', { args: ['--port', '9090'] }), observed, M).changed,
      true,
    );
    assert.equal(
      applyWouldChange(
        deployment('nginx:1', {
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
        }),
        observed,
        M,
      ).changed,
      true,
    );
    // A value the server normalises (1000m → 1) is conservatively reported as a change.
    const q = deployment('nginx:1', { resources: { limits: { cpu: '1000m' } } });
    const normalised = await client.apply(q, { fieldManager: M });
    const limits = (
      normalised.spec as { template: { spec: { containers: { resources: { limits: { cpu: string } } }[] } } }
    ).template.spec.containers[0]?.resources.limits;
    assert.equal(limits?.cpu, '1');
    assert.equal(applyWouldChange(q, normalised, M).changed, true);
    const once = await client.apply(desired, { fieldManager: M });
    assert.deepEqual(applyWouldChange(desired, once, M), { changed: false });
    // The server agrees: applying it again writes nothing. Not the resourceVersion: on the workload plane
    // the Deployment controller keeps writing status; a no-op apply leaves our entry's time and the
    // generation as they were, a write of ours would move the time (managedFields times are in seconds,
    // so the second apply waits past the next second).
    await new Promise((r) => setTimeout(r, 1_100));
    const again = await client.apply(desired, { fieldManager: M });
    const ourEntry = (o: typeof once) =>
      o.metadata.managedFields?.find((e) => e.manager === M && e.operation === 'Apply' && !e.subresource);
    assert.ok(ourEntry(once)?.time, 'our apply is recorded');
    assert.equal(ourEntry(again)?.time, ourEntry(once)?.time, 'no write on the server');
    assert.equal(again.metadata.generation, once.metadata.generation, 'no write on the server');
    assert.deepEqual(applyWouldChange(desired, again, M), { changed: false });
  });

  it('a status apply compares only status owned through the status subresource', async () => {
    const w = await installWidgetCRD(client);
    const base = { apiVersion: w.apiVersion, kind: w.kind, metadata: { name: 'w', namespace: ns } };
    await client.apply({ ...base, spec: { size: 1 } }, { fieldManager: M });
    const desiredStatus = { ...base, status: { phase: 'Ready', count: 1 } };
    const observed = await client.applyStatus(desiredStatus, { fieldManager: 'mf-status', force: true });
    assert.deepEqual(applyWouldChange(desiredStatus, observed, 'mf-status', { subresource: 'status' }), {
      changed: false,
    });
    assert.equal(
      applyWouldChange({ ...base, status: { phase: 'Ready', count: 2 } }, observed, 'mf-status', {
        subresource: 'status',
      }).path,
      '.status.count',
    );
    assert.deepEqual(applyWouldChange({ ...base, spec: { size: 1 } }, observed, M), { changed: false });
  });
});
