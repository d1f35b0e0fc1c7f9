/**
 * The ordered deployer on the real control plane, which runs the Deployment and Job
 * controllers and the scheduler over KWOK-simulated nodes: rollouts and Job
 * completions are the real controllers' (no status is written by hand). A Job that
 * must wait is held with `suspend: true` and released by the test; a Job that must
 * fail has a pod that cannot be scheduled and a 1 s active deadline.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DeployEvent, Deployer, type DeployResult } from '../../../src/deploy/deployer.ts';
import { planDeploy } from '../../../src/deploy/plan.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { type Manifest, manifestHash } from '../../../src/sdk/index.ts';
import { uniqueName } from '../../support/controlPlane.ts';
import { adminClient, eventually, testNamespace } from '../../support/kube.ts';

/** Records dependencies the way synth does: the identity hashes of what `m` depends on. */
function dependsOn(m: Manifest, ...deps: { m: Manifest; kind?: 'requires' }[]): Manifest {
  const entries = deps.map((d) => `${d.kind ? `${d.kind}:` : ''}${manifestHash(d.m)}`).sort();
  m.metadata.annotations = { ...(m.metadata.annotations ?? {}), 'kix.run/depends-on': entries.join(',') };
  return m;
}

const configMap = (ns: string, name: string, data: Record<string, string> = { k: 'v' }): Manifest => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});

const job = (ns: string, image: string, annotations: Record<string, string> = {}): Manifest => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'migrate', namespace: ns, annotations },
  spec: {
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'migrate', image }] } },
  },
});

const deployment = (ns: string): Manifest => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'api', namespace: ns },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'api' } },
    template: {
      metadata: { labels: { app: 'api' } },
      spec: { containers: [{ name: 'api', image: 'api:1' }] },
    },
  },
});

const service = (ns: string): Manifest => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'api', namespace: ns },
  spec: { selector: { app: 'api' }, ports: [{ port: 80, targetPort: 8080 }] },
});

/** Releases a Job created with `suspend: true`; the job controller then runs it to completion. */
async function release(client: RestClient, ns: string, name = 'migrate'): Promise<void> {
  await client.patch(
    { apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name },
    { spec: { suspend: false } },
    { fieldManager: 'test-release' },
  );
}

/** A Job the job controller holds (no pods) until `release`. */
const heldJob = (ns: string, image: string, annotations: Record<string, string> = {}): Manifest => {
  const j = job(ns, image, annotations);
  (j.spec as { suspend?: boolean }).suspend = true;
  return j;
};

function indexOf(events: DeployEvent[], type: DeployEvent['type'], key: string): number {
  const i = events.findIndex((e) => e.type === type && e.key === key);
  assert.ok(
    i >= 0,
    `expected event ${type} for ${key}; saw ${events.map((e) => `${e.type}:${e.key}`).join(' ')}`,
  );
  return i;
}

describe('kgraph deploy on a real control plane', () => {
  let client: RestClient;
  before(async () => {
    client = await adminClient();
  });
  after(() => client?.close());

  it('applies in dependency order, each object only after its dependencies are ready', async () => {
    const ns = await testNamespace('deploy-order');
    const cm = configMap(ns, 'config');
    const migrate = dependsOn(heldJob(ns, 'migrate:1'), { m: cm });
    const api = dependsOn(deployment(ns), { m: cm }, { m: migrate, kind: 'requires' });
    const svc = dependsOn(service(ns), { m: api });
    const events: DeployEvent[] = [];
    const run = new Deployer(client, {
      name: uniqueName('order'),
      inventoryNamespace: ns,
      pollMs: 100,
      timeoutMs: 60_000,
      onEvent: (e) => events.push(e),
    }).run([svc, api, migrate, cm]);

    const jobTarget = { apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' };
    const depTarget = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'api' };
    const svcTarget = { apiVersion: 'v1', kind: 'Service', namespace: ns, name: 'api' };
    await eventually('the Job to be applied', () => client.getOrUndefined(jobTarget));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(
      await client.getOrUndefined(depTarget),
      undefined,
      'the Deployment waits for the Job to complete',
    );
    await release(client, ns);
    const result: DeployResult = await run;

    assert.ok(result.ok, JSON.stringify(result.failed));
    const k = (m: Manifest) => `${m.apiVersion}/${m.kind}/${ns}/${m.metadata.name}`;
    assert.deepEqual(result.order, [k(cm), k(migrate), k(api), k(svc)]);
    assert.ok(indexOf(events, 'ready', k(cm)) < indexOf(events, 'applied', k(migrate)));
    assert.ok(indexOf(events, 'ready', k(migrate)) < indexOf(events, 'applied', k(api)));
    assert.ok(indexOf(events, 'ready', k(api)) < indexOf(events, 'applied', k(svc)));
    // Waiting for its own readiness is reported as such, not as waiting for dependencies.
    const jobApplied = indexOf(events, 'applied', k(migrate));
    assert.ok(jobApplied < indexOf(events, 'waiting-ready', k(migrate)));
    assert.ok(indexOf(events, 'waiting-ready', k(migrate)) < indexOf(events, 'ready', k(migrate)));
    assert.ok(
      !events.some((e, i) => i > jobApplied && e.type === 'waiting-deps' && e.key === k(migrate)),
      'no waiting-deps after the Job is applied',
    );
    const live = await client.get(svcTarget);
    assert.equal(live.metadata.annotations?.['kix.run/hash'], manifestHash(svc));
    // The deployer saw the real controllers' work: the Job completed, the rollout became available.
    const doneJob = await client.get(jobTarget);
    assert.equal((doneJob.status as { succeeded?: number }).succeeded, 1);
    const rolled = await client.get(depTarget);
    assert.equal((rolled.status as { availableReplicas?: number }).availableReplicas, 1);
  });

  it('prunes what a later build no longer contains, and never touches objects outside the inventory', async () => {
    const ns = await testNamespace('deploy-prune');
    const name = uniqueName('prune');
    const opts = { name, inventoryNamespace: ns, pollMs: 100, timeoutMs: 30_000 };
    const first = await new Deployer(client, opts).run([configMap(ns, 'a'), configMap(ns, 'b')]);
    assert.ok(first.ok);
    const rvBefore = (await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' }))
      .metadata.resourceVersion;
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: ns } });

    const second = await new Deployer(client, opts).run([configMap(ns, 'a')]);
    assert.ok(second.ok);
    assert.deepEqual(second.pruned, [`v1/ConfigMap/${ns}/b`]);
    assert.deepEqual(second.unchanged, [`v1/ConfigMap/${ns}/a`], 'an unchanged object is not re-applied');
    const get = (n: string) =>
      client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: n });
    await eventually('b to be deleted', async () => ((await get('b')) ? undefined : true));
    assert.equal(
      (await get('a'))?.metadata.resourceVersion,
      rvBefore,
      'applying the same intent writes nothing',
    );
    assert.ok(await get('c'), 'an object the inventory never recorded survives');
  });

  it('reruns a Job whose spec changed when annotated kix.run/rerun: on-change, and refuses otherwise', async () => {
    const ns = await testNamespace('deploy-rerun');
    const name = uniqueName('rerun');
    const opts = { name, inventoryNamespace: ns, pollMs: 100, timeoutMs: 30_000 };
    const target = { apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' };

    const first = await new Deployer(client, opts).run([
      job(ns, 'migrate:1', { 'kix.run/rerun': 'on-change' }),
    ]);
    assert.ok(first.ok, JSON.stringify(first.failed));
    const uid1 = (await client.get(target)).metadata.uid;

    const again = await new Deployer(client, opts).run([
      job(ns, 'migrate:1', { 'kix.run/rerun': 'on-change' }),
    ]);
    assert.ok(again.ok);
    assert.equal((await client.get(target)).metadata.uid, uid1, 'an unchanged Job is not rerun');

    const events: DeployEvent[] = [];
    const second = new Deployer(client, { ...opts, onEvent: (e) => events.push(e) }).run([
      job(ns, 'migrate:2', { 'kix.run/rerun': 'on-change' }),
    ]);
    const rerun = await eventually('the new Job', async () => {
      const j = await client.getOrUndefined(target);
      return j && j.metadata.uid !== uid1 ? j : undefined;
    });
    assert.equal(
      (rerun.spec as KubeObject['spec'] & { template: { spec: { containers: { image: string }[] } } })
        .template.spec.containers[0]!.image,
      'migrate:2',
    );
    const rerunResult = await second;
    assert.ok(rerunResult.ok, JSON.stringify(rerunResult.failed));
    assert.equal(((await client.get(target)).status as { succeeded?: number }).succeeded, 1);
    assert.ok(events.some((e) => e.type === 'rerun'));

    const refused = await new Deployer(client, opts).run([job(ns, 'migrate:3')]);
    assert.equal(refused.ok, false);
    assert.match(refused.failed[0]!.message, /immutable.*kix\.run\/rerun: on-change/);
  });

  it('dry-run plans without writing; drift by another manager is reported, and --force repairs it', async () => {
    const ns = await testNamespace('deploy-drift');
    const name = uniqueName('drift');
    const opts = { name, inventoryNamespace: ns, pollMs: 100, timeoutMs: 30_000 };
    const cm = configMap(ns, 'settings', { level: 'info' });

    const planned = await planDeploy(client, [cm], opts);
    assert.deepEqual(
      planned.steps.map((s) => s.action),
      ['create'],
    );
    const target = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' };
    assert.equal(await client.getOrUndefined(target), undefined, 'a dry run writes nothing');

    assert.ok((await new Deployer(client, opts).run([cm])).ok);
    assert.deepEqual(
      (await planDeploy(client, [cm], opts)).steps.map((s) => s.action),
      ['unchanged'],
    );

    await client.patch(target, { data: { level: 'debug' } }, { fieldManager: 'kubectl-edit' });
    const drifted = await new Deployer(client, opts).run([cm]);
    assert.equal(drifted.ok, false);
    assert.deepEqual(drifted.drift, [`v1/ConfigMap/${ns}/settings`]);
    assert.match(drifted.failed[0]!.message, /kubectl-edit.*--force/);

    const repaired = await new Deployer(client, { ...opts, force: true }).run([cm]);
    assert.ok(repaired.ok, JSON.stringify(repaired.failed));
    assert.deepEqual((await client.get(target)).data, { level: 'info' });
  });

  it('hands ceded fields over instead of deleting them', async () => {
    const ns = await testNamespace('deploy-cede');
    const name = uniqueName('cede');
    const opts = { name, inventoryNamespace: ns, wait: false, pollMs: 100 };
    const d = deployment(ns);
    d.metadata.annotations = { 'kix.run/cede-fields': JSON.stringify(['spec.replicas']) };
    (d.spec as { replicas: number }).replicas = 2;
    assert.ok((await new Deployer(client, opts).run([d])).ok);
    const target = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'api' };
    const withLabel = (tier: string) => {
      const next = structuredClone(d);
      (
        next.spec as { template: { metadata: { labels: Record<string, string> } } }
      ).template.metadata.labels.tier = tier;
      return next;
    };
    const replicas = async () => ((await client.get(target)).spec as { replicas: number }).replicas;

    // No one else owns replicas yet: a changed intent hands it over instead of dropping it (which would reset it).
    assert.ok((await new Deployer(client, opts).run([withLabel('a')])).ok);
    assert.equal(await replicas(), 2);
    const managers = (await client.get(target)).metadata.managedFields?.map((m) => m.manager);
    assert.ok(managers?.includes('kix-ceded'), `managers: ${managers?.join(', ')}`);

    // An autoscaler takes replicas over; later deploys leave its value alone.
    await client.patch(target, { spec: { replicas: 5 } }, { fieldManager: 'autoscaler' });
    const r = await new Deployer(client, opts).run([withLabel('b')]);
    assert.ok(r.ok, JSON.stringify(r.failed));
    assert.equal(await replicas(), 5, 'the autoscaler keeps replicas');
    assert.deepEqual(r.drift, [], 'a ceded field changed by its new owner is not drift');
  });

  it('schedules as a DAG: an object starts once its own dependencies are ready, not after unrelated slow ones', async () => {
    const ns = await testNamespace('deploy-dag');
    const slow = heldJob(ns, 'slow:1'); // X: suspended, so it runs only once the test releases it
    const fast = configMap(ns, 'fast'); // Y
    const dependent = dependsOn(configMap(ns, 'dependent'), { m: fast }); // Z
    const events: DeployEvent[] = [];
    const run = new Deployer(client, {
      name: uniqueName('dag'),
      inventoryNamespace: ns,
      pollMs: 100,
      timeoutMs: 60_000,
      onEvent: (e) => events.push(e),
    }).run([slow, fast, dependent]);
    const z = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'dependent' };
    await eventually('Z to be applied while X is still running', () => client.getOrUndefined(z));
    const k = (m: Manifest) => `${m.apiVersion}/${m.kind}/${ns}/${m.metadata.name}`;
    assert.ok(!events.some((e) => e.type === 'ready' && e.key === k(slow)), 'X is not ready yet');
    await release(client, ns);
    assert.ok((await run).ok);
  });

  it('fails fast on a failed Job, applies none of its dependents, and prunes nothing', async () => {
    const ns = await testNamespace('deploy-fail');
    const name = uniqueName('fail');
    const opts = { name, inventoryNamespace: ns, pollMs: 100, timeoutMs: 60_000 };
    assert.ok((await new Deployer(client, opts).run([configMap(ns, 'old')])).ok);

    // A real failure: its pod cannot be scheduled (no node has the label), so the job controller
    // fails the Job once its 1 s active deadline passes.
    const migrate = job(ns, 'migrate:bad');
    const jobSpec = migrate.spec as {
      activeDeadlineSeconds?: number;
      template: { spec: Record<string, unknown> };
    };
    jobSpec.activeDeadlineSeconds = 1;
    jobSpec.template.spec.nodeSelector = { 'kgraph.test/no-such-node': 'true' };
    const api = dependsOn(configMap(ns, 'after-migration'), { m: migrate, kind: 'requires' });
    const run = new Deployer(client, opts).run([migrate, api]);
    const result = await run;
    assert.equal(result.ok, false);
    assert.match(
      result.failed.find((f) => f.key.includes('/Job/'))!.message,
      /job failed: Job was active longer than specified deadline/,
    );
    assert.match(result.failed.find((f) => f.key.includes('after-migration'))!.message, /dependency failed/);
    const get = (n: string) =>
      client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: n });
    assert.equal(await get('after-migration'), undefined, 'a dependent of a failed Job is never applied');
    assert.ok(await get('old'), 'a failed run prunes nothing');
  });

  it('waits for an import (kix.run/import) without applying or pruning it', async () => {
    const ns = await testNamespace('deploy-import');
    const name = uniqueName('import');
    const opts = { name, inventoryNamespace: ns, pollMs: 100, timeoutMs: 60_000 };
    const imported: Manifest = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'operator-made', namespace: ns, annotations: { 'kix.run/import': 'true' } },
      spec: { ports: [{ port: 1 }] },
    };
    const user = dependsOn(configMap(ns, 'uses-service'), { m: imported });
    const run = new Deployer(client, opts).run([imported, user]);
    await new Promise((r) => setTimeout(r, 700));
    const get = (kind: string, n: string) =>
      client.getOrUndefined({ apiVersion: 'v1', kind, namespace: ns, name: n });
    assert.equal(await get('ConfigMap', 'uses-service'), undefined, 'its dependent waits for the import');
    // An operator creates the Service at run time.
    await client.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'operator-made', namespace: ns },
      spec: { ports: [{ port: 8080 }] },
    });
    const result = await run;
    assert.ok(result.ok, JSON.stringify(result.failed));
    const svc = await get('Service', 'operator-made');
    assert.equal(svc?.metadata.annotations?.['kix.run/hash'], undefined, 'the import is never applied');
    assert.deepEqual(
      (svc!.spec as { ports: { port: number }[] }).ports.map((p) => p.port),
      [8080],
    );

    const again = await new Deployer(client, opts).run([configMap(ns, 'unrelated')]);
    assert.ok(again.ok);
    assert.ok(await get('Service', 'operator-made'), 'an import is never pruned');
  });

  it('reports an image edited out of band at its field path, and restores it with --force', async () => {
    const ns = await testNamespace('deploy-image-drift');
    const name = uniqueName('imgdrift');
    const opts = { name, inventoryNamespace: ns, wait: false, pollMs: 100 };
    assert.ok((await new Deployer(client, opts).run([deployment(ns)])).ok);
    const target = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'api' };
    await client.patch(
      target,
      { spec: { template: { spec: { containers: [{ name: 'api', image: 'api:hacked' }] } } } },
      { type: 'strategic', fieldManager: 'kubectl-edit' },
    );
    const events: DeployEvent[] = [];
    const drifted = await new Deployer(client, { ...opts, onEvent: (e) => events.push(e) }).run([
      deployment(ns),
    ]);
    assert.equal(drifted.ok, false);
    const drift = events.find((e) => e.type === 'drift');
    assert.match(
      drift?.message ?? '',
      /kubectl-edit at \.spec\.template\.spec\.containers\[name="api"\]\.image/,
    );
    assert.ok((await new Deployer(client, { ...opts, force: true }).run([deployment(ns)])).ok);
    const live = await client.get(target);
    const image = (live.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec
      .containers[0]!.image;
    assert.equal(image, 'api:1');
  });

  it("prunes only objects stamped by its own inventory, and never overwrites another deploy's object", async () => {
    const ns = await testNamespace('deploy-owner');
    const mine = uniqueName('mine');
    const theirs = uniqueName('theirs');
    const opts = { name: mine, inventoryNamespace: ns, pollMs: 100, timeoutMs: 30_000 };
    assert.ok(
      (await new Deployer(client, opts).run([configMap(ns, 'a'), configMap(ns, 'b'), configMap(ns, 'c')])).ok,
    );
    // b is replaced by an object someone else created; c is taken over by another deploy name.
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' });
    await eventually('b to be gone', async () =>
      (await client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' }))
        ? undefined
        : true,
    );
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: ns } });
    const other = { ...opts, name: theirs };
    const refused = await new Deployer(client, other).run([configMap(ns, 'c')]);
    assert.equal(refused.ok, false, 'another deploy name does not silently take an object over');
    assert.match(refused.failed[0]!.message, new RegExp(`applied by deploy ${ns}/${mine}.*--force`));
    assert.ok((await new Deployer(client, { ...other, force: true }).run([configMap(ns, 'c')])).ok);

    const events: DeployEvent[] = [];
    const pruned = await new Deployer(client, { ...opts, onEvent: (e) => events.push(e) }).run([
      configMap(ns, 'a'),
    ]);
    assert.ok(pruned.ok, JSON.stringify(pruned.failed));
    assert.deepEqual(pruned.pruned, [], 'neither the hand-made b nor the taken-over c is pruned');
    assert.ok(await client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' }));
    assert.ok(await client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'c' }));
    const skipped = events.filter((e) => e.type === 'skipped').map((e) => `${e.key}: ${e.message}`);
    assert.match(
      skipped.join('\n'),
      new RegExp(`ConfigMap/${ns}/b: not pruned: it carries no kix.run/inventory stamp`),
    );
    assert.match(
      skipped.join('\n'),
      new RegExp(`ConfigMap/${ns}/c: not pruned: it now belongs to deploy ${ns}/${theirs}`),
    );
  });

  it('asks before the first prune of a name, and not again once confirmed', async () => {
    const ns = await testNamespace('deploy-confirm');
    const name = uniqueName('confirm');
    const asked: string[][] = [];
    const opts = (answer: boolean) => ({
      name,
      inventoryNamespace: ns,
      pollMs: 100,
      confirmPrune: async (prunes: readonly { key: string }[]) => {
        asked.push(prunes.map((p) => p.key));
        return answer;
      },
    });
    assert.ok(
      (
        await new Deployer(client, opts(false)).run([
          configMap(ns, 'a'),
          configMap(ns, 'b'),
          configMap(ns, 'c'),
        ])
      ).ok,
    );
    assert.deepEqual(asked, [], 'nothing to prune, nothing asked');
    const declined = await new Deployer(client, opts(false)).run([configMap(ns, 'a', { k: 'changed' })]);
    assert.equal(declined.ok, false);
    assert.deepEqual(asked, [[`v1/ConfigMap/${ns}/c`, `v1/ConfigMap/${ns}/b`]]);
    const a = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' });
    assert.deepEqual(a.data, { k: 'v' }, 'a declined prune applies nothing');
    assert.ok((await new Deployer(client, opts(true)).run([configMap(ns, 'a'), configMap(ns, 'b')])).ok);
    assert.equal(asked.length, 2);
    const later = await new Deployer(client, opts(false)).run([configMap(ns, 'a')]);
    assert.ok(later.ok);
    assert.deepEqual(later.pruned, [`v1/ConfigMap/${ns}/b`]);
    assert.equal(asked.length, 2, 'a confirmed name is not asked again');
  });
});
