/**
 * kro compatibility on the project's examples: every kro.run/v1alpha1 RGD under examples/ becomes Active,
 * and an instance of each (a web app with Deployment, Service and Ingress and a status from the
 * Deployment; a collection fan-out; an RGD that uses two other RGDs' instance kinds) runs end to end to
 * ACTIVE with its status projected. It runs on a plane with workloads (the real Deployment controller,
 * scheduler and KWOK's simulated nodes), so every Deployment's availability is the cluster's own.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { formatInstance, toJsonView } from '../../../src/cli/commands/get.ts';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import { inspectInstance } from '../../../src/controller/rgd/inspect.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { RestClient as Client } from '../../../src/kube/rest.ts';
import { dedicatedControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { documentedSchema, schemaViolations } from '../../support/jsonSchema.ts';
import {
  applyInstance,
  applyRgd,
  eventually,
  getRgd,
  startRgdController,
  stopRgdController,
  waitRgd,
} from './support.ts';

const root = join(import.meta.dirname, '../../..');
const load = (file: string): KubeObject[] =>
  parseAllDocuments(readFileSync(join(root, file), 'utf8')).map((d) => d.toJS() as KubeObject);

const RGD_FILES = [
  'examples/graphs/webapp-rgd.yaml',
  'examples/rgd/10-webapp.yaml',
  'examples/rgd/20-regional-config.yaml',
  'examples/rgd/30-platform.yaml',
];

describe('kro examples', () => {
  let client: RestClient;
  let controller: RgdController;
  let ns: string;
  let suite: string;

  before(async () => {
    // A plane of its own: the example RGDs are cluster-scoped with fixed names (platform, webapp …),
    // and other test files (kgraph up) apply the same ones to the shared plane with other controllers.
    const plane = await dedicatedControlPlane({ workloads: true });
    client = new Client(plane.kc);
    ns = uniqueName('rgd-examples');
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    suite = uniqueName('rgd-examples');
    controller = await startRgdController(suite, ns, { concurrency: 4, plane });
  });
  after(async () => {
    await stopRgdController(controller);
    // The instances' pods hold CPU on the simulated nodes: free it for later test files.
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    client.close();
  });

  it('every RGD in examples/ is Active and an instance of each converges to ACTIVE', async () => {
    const rgds = RGD_FILES.flatMap(load).filter((o) => o.kind === 'ResourceGraphDefinition');
    assert.equal(rgds.length, 4);
    for (const r of rgds) {
      r.metadata.labels = { ...(r.metadata.labels ?? {}), 'kgraph.test/suite': suite };
      await applyRgd(client, r);
    }
    for (const r of rgds) await waitRgd(client, r.metadata.name ?? '', 'Ready', 'True', undefined, 120_000);

    const instances: KubeObject[] = [
      ...load('examples/instances/regionalconfig-shop.yaml'),
      ...load('examples/with-workloads/webapp-instances.yaml'),
      {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'WebApp',
        metadata: { name: 'wa' },
        spec: { name: 'wa', expose: true },
      },
    ].map((o) => ({ ...o, metadata: { ...o.metadata, namespace: ns } }));
    for (const o of instances) await applyInstance(client, o);

    // What is not ACTIVE yet, with its conditions: a timeout names it.
    let pending = '';
    const observed = await eventually(
      'every example instance ACTIVE',
      async () => {
        const now = await Promise.all(
          instances.map((o) =>
            client.getOrUndefined({
              apiVersion: o.apiVersion,
              kind: o.kind,
              namespace: ns,
              name: o.metadata.name ?? '',
            }),
          ),
        );
        const waiting = now
          .map((o, i) => ({ o, i }))
          .filter(({ o }) => (o?.status as { state?: string } | undefined)?.state !== 'ACTIVE');
        pending = waiting
          .map(({ o, i }) => {
            if (!o) return `${instances[i]?.kind}/${instances[i]?.metadata.name}: not found`;
            const st = o.status as
              | {
                  state?: string;
                  conditions?: { type: string; status: string; reason?: string; message?: string }[];
                }
              | undefined;
            const conds = (st?.conditions ?? [])
              .filter((c) => c.status !== 'True')
              .map((c) => `${c.type}=${c.status} ${c.reason ?? ''}: ${c.message ?? ''}`);
            return `${o.kind}/${o.metadata.name} ${st?.state ?? 'no state'} [${conds.join('; ')}]`;
          })
          .join('\n');
        return waiting.length === 0 ? (now as KubeObject[]) : undefined;
      },
      180_000,
      500,
    ).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}\nnot ACTIVE:\n${pending}`);
    });
    const byName = new Map(
      observed.map((o) => [`${o.kind}/${o.metadata.name}`, o.status as Record<string, unknown>]),
    );
    const blog = byName.get('WebApplication/blog') ?? {};
    assert.equal(blog.availableReplicas, 1);
    assert.match(String(blog.clusterIP), /^\d+\.\d+\.\d+\.\d+$/);
    assert.equal(blog.url, `http://blog.${ns}.svc:8080`);
    assert.ok(
      await client.getOrUndefined({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        namespace: ns,
        name: 'blog',
      }),
    );
    const shop = byName.get('RegionalConfig/shop') ?? {};
    assert.equal(shop.regions, 3);
    assert.equal((shop.endpoints as string[]).length, 6);
    const payments = byName.get('Platform/payments') ?? {};
    assert.equal(payments.appState, 'ACTIVE');
    assert.equal(payments.appReplicas, 1);
    assert.equal(payments.regions, 1);
    assert.equal(byName.get('WebApp/wa')?.availableReplicas, 2);

    // kgraph get: instance → resources with states → children.
    const platform = await getRgd(client, 'platform');
    const inst = observed.find((o) => o.kind === 'Platform');
    assert.ok(platform && inst);
    const view = await inspectInstance(client, platform, {
      ...inst,
      apiVersion: 'kro.run/v1alpha1',
      kind: 'Platform',
    });
    // `-o json` prints what docs/cli/get.md documents (JSON.stringify drops absent fields, as the command does).
    const json = JSON.parse(JSON.stringify([toJsonView(view)])) as unknown;
    assert.deepEqual(schemaViolations(json, documentedSchema('get')), []);
    const text = formatInstance(view);
    // kubectl's names: the instance with -n, its children in that namespace without.
    assert.match(text, new RegExp(`^platform\\.kro\\.run/payments -n ${ns} {2}ACTIVE`));
    assert.match(text, /app {2}ready/);
    assert.match(text, /\n {2}[│ ] {4}webapplication\.kro\.run\/payments-web(\n|$)/);
    assert.match(text, /\n {2}[│ ] {4}regionalconfig\.kro\.run\/payments(\n|$)/);
  });
});
