// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Custom instance conditions (design/rgd.md §20.3, kro's `runtime` library) on a plane that runs
 * workloads: the author's conditions replace the four built-ins on the wire, `runtime.condition(schema,
 * 'ResourcesReady')` reads the built-in computed for the same pass, and both follow the real
 * Deployment's availability (scaled from 0 to 1 through the instance spec).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { RestClient as Client } from '../../../src/kube/rest.ts';
import { uniqueName, workloadControlPlane } from '../../support/controlPlane.ts';
import {
  applyInstance,
  applyRgd,
  type Cond,
  eventually,
  instance,
  rgd,
  startRgdController,
  stopRgdController,
  waitRgd,
} from './support.ts';

const conditions = (o: KubeObject | undefined): Cond[] =>
  ((o?.status as { conditions?: Cond[] } | undefined)?.conditions ?? []) as Cond[];
const byType = (o: KubeObject | undefined, type: string) => conditions(o).find((c) => c.type === type);

describe('RGD custom conditions', () => {
  let client: RestClient;
  let controller: RgdController;
  let ns: string;
  const suite = uniqueName('rgd-conds');
  const f = { suite, group: `${suite}.kgraph.test`, ns: '' };

  before(async () => {
    const plane = await workloadControlPlane();
    client = new Client(plane.kc);
    ns = uniqueName('rgd-conds');
    f.ns = ns;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    controller = await startRgdController(suite, ns, { plane });
  });
  after(async () => {
    await stopRgdController(controller);
    // Free the simulated nodes' CPU for later test files.
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    client.close();
  });

  it('writes the authored conditions instead of the built-ins and follows the Deployment', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'cache',
        {
          kind: 'Cache',
          spec: { replicas: 'integer | default=0' },
          status: {
            available: '${cache.status.?availableReplicas.orValue(0)}',
            conditions: [
              "${runtime.newCondition({type: 'CacheAvailable', status: cache.status.?availableReplicas.orValue(0) > 0 ? 'True' : 'False', reason: 'Replicas', message: 'available replicas: ' + string(cache.status.?availableReplicas.orValue(0))})}",
              "${runtime.newCondition({type: 'Converged', status: runtime.condition(schema, 'ResourcesReady').status == 'True' ? 'True' : 'Unknown', reason: runtime.condition(schema, 'ResourcesReady').reason, message: 'from ResourcesReady'})}",
            ],
          },
        },
        [
          {
            id: 'cache',
            readyWhen: ['${cache.status.?availableReplicas.orValue(0) >= 1}'],
            template: {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: '${schema.metadata.name}-cache' },
              spec: {
                replicas: '${schema.spec.replicas}',
                selector: { matchLabels: { app: '${schema.metadata.name}' } },
                template: {
                  metadata: { labels: { app: '${schema.metadata.name}' } },
                  spec: {
                    containers: [
                      { name: 'redis', image: 'redis:7', resources: { requests: { cpu: '10m' } } },
                    ],
                  },
                },
              },
            },
          },
        ],
      ),
    );
    await waitRgd(client, 'cache', 'Ready', 'True', undefined, 90_000);
    await applyInstance(client, instance(f, 'Cache', 'c1', {}));

    const get = () =>
      client.getOrUndefined({ apiVersion: `${f.group}/v1alpha1`, kind: 'Cache', namespace: ns, name: 'c1' });

    // Scaled to 0: nothing is available; the built-in ResourcesReady (False, NotReady) shows through.
    const waiting = await eventually(
      'Cache c1 IN_PROGRESS with its authored conditions',
      async () => {
        const o = await get();
        return (o?.status as { state?: string } | undefined)?.state === 'IN_PROGRESS' &&
          byType(o, 'Converged')
          ? o
          : undefined;
      },
      90_000,
      250,
    );
    assert.deepEqual(
      conditions(waiting).map((c) => c.type),
      ['CacheAvailable', 'Converged'],
      'only the authored conditions are on the wire',
    );
    assert.equal(byType(waiting, 'CacheAvailable')?.status, 'False');
    assert.equal(byType(waiting, 'CacheAvailable')?.message, 'available replicas: 0');
    assert.equal(byType(waiting, 'Converged')?.status, 'Unknown');
    assert.equal(byType(waiting, 'Converged')?.reason, 'NotReady', 'runtime.condition read the built-in');
    assert.equal(byType(waiting, 'Converged')?.observedGeneration, waiting.metadata.generation);

    // Scale to 1: the real Deployment controller, scheduler and simulated node make it available.
    await applyInstance(client, instance(f, 'Cache', 'c1', { replicas: 1 }));
    const active = await eventually(
      'Cache c1 ACTIVE',
      async () => {
        const o = await get();
        return (o?.status as { state?: string } | undefined)?.state === 'ACTIVE' &&
          byType(o, 'CacheAvailable')?.status === 'True'
          ? o
          : undefined;
      },
      120_000,
      250,
    );
    assert.equal((active.status as { available?: number }).available, 1);
    assert.equal(byType(active, 'Converged')?.status, 'True');
    assert.equal(byType(active, 'Converged')?.reason, 'AllResourcesReady');
    assert.equal(byType(active, 'CacheAvailable')?.message, 'available replicas: 1');
    assert.deepEqual(
      conditions(active).map((c) => c.type),
      ['CacheAvailable', 'Converged'],
    );
  });
});
