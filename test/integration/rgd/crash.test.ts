// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * A `kgraph controller` process killed mid-convergence of 100 instances, while some instances are edited
 * so that their children are renamed: a replacement converges every instance with exactly its children —
 * none duplicated, none leaked (the renamed ones pruned through the ApplySet inventory).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { adminClient, testNamespace } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  ensureRgdCrd,
  eventually,
  instance,
  rgd,
  startRgdController,
  stopRgdController,
  waitRgd,
} from './support.ts';

const TOTAL = 100;

describe('RGD controller crash', () => {
  let client: RestClient;
  let proc: ChildProcess | undefined;
  let ns: string;
  let suite: string;

  before(async () => {
    client = await adminClient();
    ns = await testNamespace('rgd-crash');
    suite = uniqueName('rgd-crash');
    await ensureRgdCrd();
  });
  after(() => {
    proc?.kill('SIGKILL');
  });

  it('converges 100 instances after a kill with no leaked or duplicated child', async () => {
    const f = { suite, group: `${suite}.kgraph.test`, ns };
    await applyRgd(
      client,
      rgd(f, 'fleet', { kind: 'Fleet', spec: { suffix: 'string | default="x"' } }, [
        {
          id: 'a',
          template: cm('${schema.metadata.name}-a-${schema.spec.suffix}', { i: '${schema.metadata.name}' }),
        },
        {
          id: 'b',
          template: cm('${schema.metadata.name}-b-${schema.spec.suffix}', { from: '${a.metadata.name}' }),
        },
      ]),
    );
    const cp = await sharedControlPlane();
    const port = await freePort();
    proc = spawnController(cp.kubeconfigPath, port, [
      '--no-graphs',
      '--rgd-selector',
      `kgraph.test/suite=${suite}`,
      '--namespace',
      ns,
      '--rgd-concurrency',
      '4',
    ]);
    await waitReadyz(port, 'controller /readyz', 60_000, 50);
    await waitRgd(client, 'fleet', 'Ready', 'True', undefined, 90_000);
    await Promise.all(
      Array.from({ length: TOTAL }, (_, i) => applyInstance(client, instance(f, 'Fleet', `f${i}`, {}))),
    );
    const owned = async (): Promise<KubeObject[]> =>
      (
        await client.listAll(
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
          { labelSelector: { 'kro.run/owned': 'true' } },
        )
      ).items;
    const atKill = await eventually(
      'first children',
      async () => {
        const n = (await owned()).length;
        return n > 0 ? n : undefined;
      },
      90_000,
      10,
    );
    proc.kill('SIGKILL');
    await once(proc, 'exit');
    proc = undefined;
    assert.ok(atKill < 2 * TOTAL, `killed after ${atKill} of ${2 * TOTAL} children`);
    // While no controller runs, rename the children of ten instances (some of which already have children).
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        applyInstance(client, instance(f, 'Fleet', `f${i}`, { suffix: 'y' })),
      ),
    );

    const replacement = await startRgdController(suite, ns, { concurrency: 4 });
    try {
      const instances = await eventually(
        'all ACTIVE',
        async () => {
          const list = (
            await client.listAll({ apiVersion: `${f.group}/v1alpha1`, kind: 'Fleet', namespace: ns })
          ).items;
          const current = list.filter((o) => {
            const s = o.status as
              | { state?: string; conditions?: { type: string; observedGeneration?: number }[] }
              | undefined;
            const ready = s?.conditions?.find((c) => c.type === 'Ready');
            return s?.state === 'ACTIVE' && ready?.observedGeneration === o.metadata.generation;
          });
          return current.length === TOTAL ? list : undefined;
        },
        180_000,
        500,
      );
      await replacement.idle(60_000);
      const children = await owned();
      assert.equal(children.length, 2 * TOTAL, 'exactly two children per instance');
      assert.equal(new Set(children.map((c) => c.metadata.name)).size, 2 * TOTAL, 'no duplicate');
      const uidOf = new Map(instances.map((o) => [o.metadata.name, o.metadata.uid]));
      for (const c of children) {
        const owner = c.metadata.labels?.['kro.run/instance-name'] ?? '';
        assert.equal(c.metadata.labels?.['kro.run/instance-id'], uidOf.get(owner), c.metadata.name);
        const suffix = Number(owner.slice(1)) < 10 ? 'y' : 'x';
        assert.ok(c.metadata.name?.endsWith(`-${suffix}`), `${c.metadata.name} is current (no leak)`);
      }
    } finally {
      await stopRgdController(replacement);
    }
  });
});
