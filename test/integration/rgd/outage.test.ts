// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Recovery after an API server outage (kube/connectivity.ts): instances converging when the server dies
 * keep failing on the connection, and their queue backoff grows (1 s, 2 s, 4 s … 32 s). When the server
 * is back they must be retried at once, not each after its own backoff: after a 35-second outage the
 * backoff alone would leave the last of them waiting about 20 s more. The plane is this file's own
 * (etcd kept across the restart: same objects, ports and certificates).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import {
  type RestartableControlPlane,
  restartableControlPlane,
  uniqueName,
} from '../../support/controlPlane.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  eventually,
  instance,
  rgd,
  startRgdController,
  stopRgdController,
  waitRgd,
} from './support.ts';

const INSTANCES = 40;
const CHILDREN = 8;
const ITEMS = Array.from({ length: CHILDREN }, (_, i) => `c${i}`);
const OUTAGE_MS = 35_000;
/** Well under what the backoff alone leaves (about 20 s), well over a loaded machine's reconnect. */
const CONVERGE_WITHIN_MS = 10_000;

describe('recovery after an API server outage', () => {
  let plane: RestartableControlPlane;
  let client: RestClient;
  let controller: RgdController | undefined;
  const suite = uniqueName('rgd-outage');
  const f = { suite, group: `${suite}.kgraph.test`, ns: uniqueName('rgd-outage') };

  before(async () => {
    plane = await restartableControlPlane();
    client = new RestClient(plane.kc, { timeoutMs: 5_000 });
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: f.ns } });
    controller = await startRgdController(suite, f.ns, { plane, concurrency: 2 });
  });
  after(async () => {
    await stopRgdController(controller);
    client?.close();
    await plane?.stop();
  });

  const states = async (): Promise<Map<string, string | undefined>> => {
    const list = await client.list({ apiVersion: `${f.group}/v1alpha1`, kind: 'Stack', namespace: f.ns });
    return new Map(
      list.items.map((o) => [o.metadata.name ?? '', (o.status as { state?: string } | undefined)?.state]),
    );
  };

  it('instances failed during the outage converge at once when the server is back', {
    timeout: 240_000,
  }, async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'stack',
        {
          kind: 'Stack',
          spec: {
            items: '[]string | required=true',
          },
        },
        [
          {
            id: 'parts',
            forEach: [{ part: '${schema.spec.items}' }],
            template: cm('${schema.metadata.name}-${part}', { part: '${part}' }),
          },
        ],
      ),
    );
    await waitRgd(client, 'stack', 'Ready', 'True');
    await Promise.all(
      Array.from({ length: INSTANCES }, (_, i) =>
        applyInstance(client, instance(f, 'Stack', `s${i}`, { items: ITEMS })),
      ),
    );
    // The server dies while the instances converge: a few children exist, most instances are still queued.
    await eventually(
      'the first children',
      async () => {
        const cms = await client.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: f.ns });
        return cms.items.length > 2 ? true : undefined;
      },
      60_000,
      20,
    );
    // Counted as the server dies: nothing converges while it is down, and once it is back the retries may
    // converge the rest before a read after plane.start() could see them pending.
    const atStop = await states();
    const pending = INSTANCES - [...atStop.values()].filter((s) => s === 'ACTIVE').length;
    await plane.stop();
    const outageStart = Date.now();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await plane.start();
    const back = Date.now();
    assert.ok(
      pending >= 5,
      `only ${pending} of ${INSTANCES} instances were left to converge when the server stopped`,
    );
    await eventually(
      `all ${INSTANCES} instances ACTIVE`,
      async () => {
        const now = await states();
        return now.size === INSTANCES && [...now.values()].every((s) => s === 'ACTIVE') ? true : undefined;
      },
      120_000,
      100,
    );
    const converged = Date.now() - back;
    process.stdout.write(
      `# outage ${Math.round((back - outageStart) / 1000)} s; ${pending} instances converged ${converged} ms after the server was back\n`,
    );
    assert.ok(converged < CONVERGE_WITHIN_MS, `converged ${converged} ms after the server was back`);
  });
});
