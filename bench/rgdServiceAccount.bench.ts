// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The cost of `spec.defaultServiceAccounts` on an RGD (docs/rgd.md, "Trust model"): the same RGD with
 * and without it, N instances created at once in a fresh namespace, time until every instance is ACTIVE.
 * Each instance reads a Secret of another namespace through an externalRef and writes two ConfigMaps
 * (one reading the other). With the field, each round's namespace has its own ServiceAccount (so the
 * access answers start cold every round), granted what it needs by RoleBindings; children are written
 * impersonating it. The RGD controller runs in this process on a fresh local control plane; rounds
 * alternate between the two RGDs.
 *
 * Run: node --import tsx bench/rgdServiceAccount.bench.ts [--write] [--instances N] [--rounds R] [--concurrency N]
 * With --write the table replaces the `## RGD instances as a ServiceAccount` section of bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { RgdController } from '../src/controller/rgd/controller.ts';
import { installRgdCrd } from '../src/controller/rgd/crd.ts';
import type { KubeObject } from '../src/kube/index.ts';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { RestClient } from '../src/kube/rest.ts';
import { startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const INSTANCES = arg('--instances', 50);
const ROUNDS = arg('--rounds', 3);
const CONCURRENCY = arg('--concurrency', 4);
const GROUP = 'bench.kgraph.test';
const SA = 'inst';
const SOURCE_NS = 'bench-src';

function rgd(name: string, kind: string, sas?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: { name },
    spec: {
      ...(sas ? { defaultServiceAccounts: sas } : {}),
      schema: { apiVersion: 'v1alpha1', group: GROUP, kind, spec: { name: 'string' } },
      resources: [
        {
          id: 'src',
          externalRef: {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'shared', namespace: SOURCE_NS },
          },
        },
        {
          id: 'base',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${schema.spec.name}-base' },
            data: { token: '${string(src.data.token)}' },
          },
        },
        {
          id: 'derived',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${schema.spec.name}-derived' },
            data: { from: '${base.metadata.name}' },
          },
        },
      ],
    },
  };
}

async function rbac(admin: RestClient, ns: string, name: string, rules: unknown[], saNs: string) {
  const rb = 'rbac.authorization.k8s.io/v1';
  await admin.apply(
    { apiVersion: rb, kind: 'Role', metadata: { name, namespace: ns }, rules } as KubeObject,
    {
      fieldManager: 'bench',
    },
  );
  await admin.apply(
    {
      apiVersion: rb,
      kind: 'RoleBinding',
      metadata: { name, namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: SA, namespace: saNs }],
    } as unknown as KubeObject,
    { fieldManager: 'bench' },
  );
}

const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-rgd-sa-'));
const plane = await startLocalControlPlane({ dataDir, ephemeral: true });
const kc = new KubeConfig();
kc.loadFromFile(plane.kubeconfig);
const admin = new RestClient(kc);
let controller: RgdController | undefined;
try {
  await installRgdCrd(admin);
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: SOURCE_NS } });
  await admin.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'shared', namespace: SOURCE_NS },
    data: { token: Buffer.from('t0ken').toString('base64') },
  } as KubeObject);
  controller = new RgdController({
    client: new RestClient(kc),
    installCrd: false,
    concurrency: CONCURRENCY,
    log: pino({ level: 'silent' }),
  });
  await controller.start();
  const modes = [
    { label: 'without the field (controller identity)', kind: 'OpenBench', rgd: rgd('open', 'OpenBench') },
    {
      label: 'with `defaultServiceAccounts: {"*": inst}`',
      kind: 'ScopedBench',
      rgd: rgd('scoped', 'ScopedBench', { '*': SA }),
    },
  ];
  for (const m of modes) await admin.apply(m.rgd, { fieldManager: 'bench' });
  // Both kinds served before the first round.
  for (const m of modes) {
    for (;;) {
      const r = await admin.getOrUndefined({
        apiVersion: 'kro.run/v1alpha1',
        kind: 'ResourceGraphDefinition',
        name: m.rgd.metadata.name ?? '',
      });
      if ((r?.status as { state?: string } | undefined)?.state === 'Active') break;
      await new Promise((res) => setTimeout(res, 200));
    }
  }

  const times: number[][] = modes.map(() => []);
  const reviews: number[] = [];
  // Round -1 warms up (informers of the child and ref kinds, discovery, the JIT); it is not counted.
  for (let round = -1; round < ROUNDS; round++) {
    const count = round < 0 ? 5 : INSTANCES;
    for (const [i, m] of modes.entries()) {
      const ns = `r${round < 0 ? 'warm' : round}-${m.kind.toLowerCase()}`;
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: ns } });
      await rbac(
        admin,
        ns,
        'children',
        [
          {
            apiGroups: [''],
            resources: ['configmaps'],
            verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
          },
        ],
        ns,
      );
      await rbac(
        admin,
        SOURCE_NS,
        `reader-${ns}`,
        [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
        ns,
      );
      const reviewsBefore = controller.reads.stats.reviews;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: count }, (_, k) =>
          admin.create({
            apiVersion: `${GROUP}/v1alpha1`,
            kind: m.kind,
            metadata: { name: `i${k}`, namespace: ns },
            spec: { name: `i${k}` },
          }),
        ),
      );
      for (;;) {
        const list = await admin.listAll({ apiVersion: `${GROUP}/v1alpha1`, kind: m.kind, namespace: ns });
        const active = list.items.filter(
          (o) => (o.status as { state?: string } | undefined)?.state === 'ACTIVE',
        );
        if (active.length === count) break;
        if (performance.now() - t0 > 600_000)
          throw new Error(`${m.kind}: ${active.length} ACTIVE after 600 s`);
        await new Promise((res) => setTimeout(res, 100));
      }
      if (round < 0) continue;
      times[i]?.push(performance.now() - t0);
      if (i === 1) reviews.push(controller.reads.stats.reviews - reviewsBefore);
      process.stdout.write(`round ${round} ${m.kind}: ${((performance.now() - t0) / 1000).toFixed(2)} s\n`);
    }
  }

  const row = (i: number) => {
    const t = times[i] ?? [];
    const med = median(t);
    return `| ${modes[i]?.label} | ${(med / 1000).toFixed(2)} s (${(med / INSTANCES).toFixed(0)} ms per instance) | ${t.map((x) => (x / 1000).toFixed(2)).join(', ')} s |`;
  };
  const added = median(times[1] ?? []) - median(times[0] ?? []);
  const lines = [
    measuredBy('rgdServiceAccount.bench.ts', `load average ${loadAverage()} at the end`),
    `${INSTANCES} instances created at once in a fresh namespace → all ACTIVE; each reads a Secret of another namespace (externalRef) and writes 2 ConfigMaps; instance concurrency ${CONCURRENCY}; the RGD controller in the benchmark's process; fresh local control plane; a warm-up round of 5 instances each, then ${ROUNDS} rounds, alternating.`,
    '',
    '| RGD | median time to all ACTIVE | rounds |',
    '|---|---|---|',
    row(0),
    row(1),
    '',
    `With the field: ${median(reviews)} SubjectAccessReviews sent per round (median; a fresh ServiceAccount each round, so its answers start cold; the count includes the rechecks the round's own Role and RoleBinding creations trigger through the RBAC watch), ${(added / INSTANCES).toFixed(1)} ms added per instance (difference of the medians; the rounds vary by more than that on this shared machine).`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.argv.includes('--write'))
    writeReadmeSection(`## RGD instances as a ServiceAccount\n\n${lines.join('\n')}\n`);
} finally {
  await controller?.stop();
  controller?.client.close();
  admin.close();
  await plane.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
