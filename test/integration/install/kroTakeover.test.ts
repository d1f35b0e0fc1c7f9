// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kro ${…} expressions, not JS templates
/**
 * Moving from kro on a live cluster (docs/install.md, "Moving from kro"): kro's own controller (v0.9.4,
 * built unchanged from the Go module proxy) serves an RGD and creates its instances' children; kro is
 * stopped; kgraph's CRDs are applied over kro's and `kgraph controller` starts. kgraph takes the instances
 * over: every child keeps its UID (0 re-created), every instance is ACTIVE again under kgraph, and an edit
 * made after the hand-over reaches the existing child. A control plane of its own, so no other test's
 * controller serves this RGD.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/index.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import { applyChartCrds } from '../../support/chartCrds.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { dedicatedControlPlane, type TestControlPlane } from '../../support/controlPlane.ts';
import { installKroCrds, kroBinary, spawnKro } from '../../support/kro.ts';
import { eventually } from '../../support/kube.ts';

const NS = 'apps';
const INSTANCES = 5;
const API = { apiVersion: 'kro.run/v1alpha1', kind: 'WebApp' } as const;
/** The children of one instance, by kind, named `<instance>-<suffix>`. */
const CHILDREN = [
  { apiVersion: 'v1', kind: 'ConfigMap', suffix: 'config' },
  { apiVersion: 'v1', kind: 'Secret', suffix: 'token' },
  { apiVersion: 'v1', kind: 'Service', suffix: 'svc' },
  { apiVersion: 'v1', kind: 'ConfigMap', suffix: 'derived' },
] as const;

function rgd(): KubeObject {
  const meta = (suffix: string) => ({ name: `\${schema.metadata.name}-${suffix}` });
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: { name: 'webapp' },
    spec: {
      schema: {
        apiVersion: 'v1alpha1',
        kind: API.kind,
        spec: { greeting: 'string | default="hello"' },
        status: { derived: '${derived.data.from}' },
      },
      resources: [
        {
          id: 'config',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: meta('config'),
            data: { greeting: '${schema.spec.greeting}' },
          },
        },
        {
          id: 'token',
          template: { apiVersion: 'v1', kind: 'Secret', metadata: meta('token'), stringData: { t: 'x' } },
        },
        {
          id: 'svc',
          template: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: meta('svc'),
            spec: { selector: { app: '${schema.metadata.name}' }, ports: [{ port: 80, targetPort: 8080 }] },
          },
        },
        {
          id: 'derived',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: meta('derived'),
            data: { from: '${config.metadata.name}' },
          },
        },
      ],
    },
  };
}

const name = (i: number) => `web${i}`;

/** kro and kgraph both report a converged instance as `state: ACTIVE` with `Ready=True`. */
function active(o: KubeObject | undefined): boolean {
  const s = o?.status as { state?: string; conditions?: { type: string; status: string }[] } | undefined;
  return s?.state === 'ACTIVE' && (s.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

async function stop(p: ChildProcess | undefined): Promise<void> {
  if (!p || p.exitCode !== null) return;
  const exited = once(p, 'exit');
  p.kill('SIGTERM');
  await exited;
}

describe('moving from kro: kgraph takes over instances kro created', { timeout: 20 * 60_000 }, () => {
  let cp: TestControlPlane;
  let admin: RestClient;
  let kro: ChildProcess | undefined;
  let kgraph: ChildProcess | undefined;
  /** `<kind>/<name>` → UID of every child as kro left it. */
  const kroUids = new Map<string, string>();
  const kroVersions = new Map<string, string>();
  const kroLabels = new Map<string, Record<string, string>>();

  const children = async (): Promise<KubeObject[]> =>
    Promise.all(
      Array.from({ length: INSTANCES }, (_, i) =>
        CHILDREN.map((c) =>
          admin.get({
            apiVersion: c.apiVersion,
            kind: c.kind,
            namespace: NS,
            name: `${name(i)}-${c.suffix}`,
          }),
        ),
      ).flat(),
    );
  const key = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

  before(async () => {
    const binary = kroBinary();
    cp = await dedicatedControlPlane({ workloads: false });
    admin = new RestClient(cp.kc);
    await installKroCrds(admin);
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });

    kro = spawnKro(binary, cp.kubeconfigPath, await freePort(), await freePort());
    await admin.apply(rgd(), { fieldManager: 'test', force: true });
    await eventually(
      "kro's RGD Active",
      async () => {
        if (kro?.exitCode !== null) throw new Error(`kro exited with ${kro?.exitCode}`);
        const r = await admin.get({
          apiVersion: 'kro.run/v1alpha1',
          kind: 'ResourceGraphDefinition',
          name: 'webapp',
        });
        return (r.status as { state?: string } | undefined)?.state === 'Active' ? true : undefined;
      },
      120_000,
    );
    await eventually(
      'the instances accepted',
      async () => {
        for (let i = 0; i < INSTANCES; i++)
          await admin.apply(
            { ...API, metadata: { name: name(i), namespace: NS }, spec: {} },
            { fieldManager: 'test', force: true },
          );
        return true;
      },
      60_000,
      500,
    );
    await eventually(
      'every instance ACTIVE under kro',
      async () => {
        const items = (await admin.list({ ...API, namespace: NS })).items;
        return items.length === INSTANCES && items.every(active) ? true : undefined;
      },
      180_000,
    );
    for (const o of await children()) {
      kroUids.set(key(o), o.metadata.uid ?? '');
      kroVersions.set(key(o), o.metadata.resourceVersion ?? '');
      kroLabels.set(key(o), o.metadata.labels ?? {});
    }
    await stop(kro);

    // kgraph's CRDs over kro's, as `kubectl apply --server-side --force-conflicts -f charts/kgraph/crds`.
    await applyChartCrds(admin);
    const port = await freePort();
    kgraph = spawnController(cp.kubeconfigPath, port, ['--no-graphs']);
    await waitReadyz(port, 'kgraph controller', 120_000);
  });

  after(async () => {
    await stop(kro);
    await stop(kgraph);
    admin?.close();
  });

  it('kro created every child', () => {
    assert.equal(kroUids.size, INSTANCES * CHILDREN.length);
  });

  it('kgraph reconciles the instances: ACTIVE, and an edit reaches the existing child', async () => {
    // An edit kro never saw: only kgraph can carry it to the ConfigMap.
    await admin.apply(
      { ...API, metadata: { name: name(0), namespace: NS }, spec: { greeting: 'from-kgraph' } },
      { fieldManager: 'test', force: true },
    );
    await eventually(
      'the edit in the ConfigMap',
      async () => {
        const c = await admin.get({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: NS,
          name: `${name(0)}-config`,
        });
        return (c.data as Record<string, string>).greeting === 'from-kgraph' ? true : undefined;
      },
      120_000,
    );
    await eventually(
      'every instance ACTIVE with a status kgraph wrote, on its current generation',
      async () => {
        const items = (await admin.list({ ...API, namespace: NS })).items;
        const done = items.filter((o) => {
          const ready = (
            o.status as { conditions?: { type: string; observedGeneration?: number }[] }
          )?.conditions?.find((c) => c.type === 'Ready');
          // kro's status stays ACTIVE after kro stops: kgraph's own status write is the proof.
          const byKgraph = (o.metadata.managedFields ?? []).some(
            (m) => m.manager === 'kgraph-controller' && m.subresource === 'status',
          );
          return active(o) && byKgraph && ready?.observedGeneration === o.metadata.generation;
        });
        return done.length === INSTANCES ? true : undefined;
      },
      120_000,
    );
  });

  it('re-creates no child: every UID is the one kro created', async () => {
    const now = await children();
    const recreated = now.filter((o) => kroUids.get(key(o)) !== o.metadata.uid).map(key);
    const written = now.filter((o) => kroVersions.get(key(o)) !== o.metadata.resourceVersion).map(key);
    // What kgraph's one write per child changed: the labels it stamps where kro's differ.
    const changed = new Set<string>();
    for (const o of now) {
      const before = kroLabels.get(key(o)) ?? {};
      const after = o.metadata.labels ?? {};
      for (const k of new Set([...Object.keys(before), ...Object.keys(after)]))
        if (before[k] !== after[k]) changed.add(`${k}: ${before[k] ?? '-'} → ${after[k] ?? '-'}`);
    }
    process.stderr.write(
      `kro → kgraph: ${now.length} children, ${recreated.length} re-created, ${written.length} written by kgraph; labels changed: ${[...changed].sort().join('; ')}\n`,
    );
    assert.deepEqual(recreated, []);
  });
});
