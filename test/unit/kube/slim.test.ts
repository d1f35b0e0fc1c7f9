/**
 * Smaller cached objects: the informer's transform is applied to listed and watched
 * objects before they are cached and handed to handlers; the managedFields transforms; slim OpenAPI
 * documents keep the schemas without descriptions.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Informer, type ListerWatcher } from '../../../src/kube/informer.ts';
import { slimDocument } from '../../../src/kube/openapi.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import { dropManagedFields, keepManagedFields } from '../../../src/kube/slim.ts';
import type { KubeObject } from '../../../src/kube/types.ts';

function cm(name: string, rv: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'ns',
      resourceVersion: rv,
      managedFields: [
        {
          manager: 'kro-graphengine.tmpl.abc',
          operation: 'Apply',
          time: '2026-01-01T00:00:00Z',
          fieldsV1: { 'f:data': {} },
        },
        { manager: 'kubectl', operation: 'Update', time: '2026-01-01T00:00:00Z', fieldsV1: { 'f:data': {} } },
      ],
    },
    data: { k: 'v' },
  };
}

describe('slim cached objects', () => {
  it('dropManagedFields removes the field and keeps the rest', () => {
    const o = dropManagedFields(cm('a', '1'));
    assert.equal(o.metadata.managedFields, undefined);
    assert.equal(o.metadata.resourceVersion, '1');
    assert.deepEqual(o.data, { k: 'v' });
  });

  it('keepManagedFields keeps the accepted managers without time, and drops an empty list', () => {
    const keep = keepManagedFields((m) => m.startsWith('kro-graphengine.'));
    const o = keep(cm('a', '1'));
    assert.deepEqual(o.metadata.managedFields, [
      { manager: 'kro-graphengine.tmpl.abc', operation: 'Apply', fieldsV1: { 'f:data': {} } },
    ]);
    const none = keepManagedFields(() => false)(cm('b', '1'));
    assert.equal('managedFields' in none.metadata, false);
  });

  it('the informer caches and hands over transformed objects, from the list and from the watch', async () => {
    let release: () => void = () => {};
    const lw: ListerWatcher = {
      async list() {
        return { items: [cm('a', '1')], resourceVersion: '1' };
      },
      async watch(_rv, signal, onEvent) {
        onEvent({ type: 'ADDED', object: cm('b', '2') });
        onEvent({ type: 'MODIFIED', object: cm('a', '3') });
        release();
        await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      },
    };
    const seen: KubeObject[] = [];
    const inf = new Informer({} as RestClient, {
      target: { apiVersion: 'v1', kind: 'ConfigMap' },
      listerWatcher: lw,
      transform: dropManagedFields,
    });
    inf.addHandlers({ add: (o) => seen.push(o), update: (_o, n) => seen.push(n) });
    const watched = new Promise<void>((r) => {
      release = r;
    });
    inf.start();
    await inf.waitForSync();
    await watched;
    await inf.stop();
    assert.deepEqual(
      seen.map((o) => [o.metadata.name, o.metadata.resourceVersion, o.metadata.managedFields]),
      [
        ['a', '1', undefined],
        ['b', '2', undefined],
        ['a', '3', undefined],
      ],
    );
    assert.equal(inf.get('ns', 'a')?.metadata.managedFields, undefined);
    assert.equal(inf.get('ns', 'a')?.metadata.resourceVersion, '3');
  });

  it('slimDocument keeps components.schemas without description strings', () => {
    const doc = {
      openapi: '3.0.0',
      paths: { '/api/v1/configmaps': { get: { description: 'list' } } },
      components: {
        schemas: {
          'io.k8s.api.core.v1.ConfigMap': {
            description: 'a config map',
            type: 'object',
            properties: {
              data: { description: 'the data', type: 'object' },
              // A property named `description` is a schema, not a description.
              description: { type: 'string', description: 'x' },
            },
            'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'ConfigMap' }],
          },
        },
      },
    };
    assert.deepEqual(slimDocument(doc), {
      components: {
        schemas: {
          'io.k8s.api.core.v1.ConfigMap': {
            type: 'object',
            properties: { data: { type: 'object' }, description: { type: 'string' } },
            'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'ConfigMap' }],
          },
        },
      },
    });
  });
});
