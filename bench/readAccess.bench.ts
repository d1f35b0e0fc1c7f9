/**
 * The cost of "a Graph reads only what its ServiceAccount may read" (docs/security.md) at 1,000 Graphs,
 * against a fresh local control plane. Worst case for the cache: every Graph runs in its own namespace
 * as its own ServiceAccount, so no answer is shared. Each Graph reads ConfigMaps by name (its templates,
 * a ref) and by selector in its namespace — allowed by a RoleBinding there — and a Secret in another
 * namespace, which is refused (the broad and the by-name question: two reviews).
 *
 * Measured: reviews and wall time of the first reconcile of all Graphs (cold cache, 4 at a time like
 * `--concurrency 4`), the latency of one SubjectAccessReview, the cost of a guarded read once the
 * answer is cached (vs an unguarded one), the heap the answers take, and the re-check after an RBAC
 * change of one namespace and of a ClusterRole.
 *
 * Run: node --expose-gc --import tsx bench/readAccess.bench.ts [--write] [--graphs N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inScope, scopeOfChange } from '../src/controller/core/rbacChanges.ts';
import {
  newReadLedger,
  ReadAccess,
  type ReadScope,
  serviceAccountSubject,
} from '../src/controller/core/readAccess.ts';
import { subjectAccessReview } from '../src/kube/access.ts';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { RestClient } from '../src/kube/rest.ts';
import type { KubeObject } from '../src/kube/types.ts';
import { startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { observedFromObjects } from '../src/runtime/observed.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const GRAPHS = arg('--graphs', 1000);
const CONCURRENCY = 4;
const gc = (globalThis as { gc?: () => void }).gc;

const coordinates = (_apiVersion: string, kind: string) =>
  kind === 'Secret'
    ? { group: '', resource: 'secrets', namespaced: true }
    : { group: '', resource: 'configmaps', namespaced: true };

const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-access-'));
const plane = await startLocalControlPlane({ dataDir, ephemeral: true });
const kc = new KubeConfig();
kc.loadFromFile(plane.kubeconfig);
const admin = new RestClient(kc);
const lines: string[] = [];

async function pool(n: number, limit: number, f: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) await f(next++);
    }),
  );
}

try {
  const nsOf = (i: number) => `g${i}`;
  await admin.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'cm-reader' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
  });
  await pool(GRAPHS, 8, async (i) => {
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: nsOf(i) } });
    await admin.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'cm-reader', namespace: nsOf(i) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: nsOf(i) }],
    });
  });

  // One review, alone.
  const single: number[] = [];
  for (let k = 0; k < 200; k++) {
    const t = performance.now();
    await subjectAccessReview(admin, serviceAccountSubject(nsOf(k % GRAPHS), 'default'), {
      verb: 'get',
      resource: 'configmaps',
      namespace: nsOf(k % GRAPHS),
    });
    single.push(performance.now() - t);
  }

  // What one Graph reads: 9 templates and a ref by name, a selector, a Secret elsewhere.
  const objectsOf = (ns: string): KubeObject[] => [
    ...Array.from({ length: 10 }, (_, k) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `c${k}`, namespace: ns, labels: { app: 'x' } },
    })),
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shared' } },
  ];
  const readAll = (scope: ReadScope, observed: ReturnType<typeof observedFromObjects>, ns: string) => {
    const ledger = newReadLedger();
    const view = scope.guard(observed, ledger);
    for (let k = 0; k < 10; k++)
      view.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: `c${k}` }, 'n');
    view.list('v1', 'ConfigMap', ns, { matchLabels: { app: 'x' } }, 'sel');
    view.get({ apiVersion: 'v1', kind: 'Secret', namespace: 'shared', name: 'db' }, 's');
    return ledger;
  };

  gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const access = new ReadAccess(admin, coordinates);
  const observedOf = Array.from({ length: GRAPHS }, (_, i) => observedFromObjects(objectsOf(nsOf(i))));
  const scopes = Array.from({ length: GRAPHS }, (_, i) => access.forServiceAccount(nsOf(i), 'default'));
  const perGraph: number[] = [];
  const t0 = performance.now();
  await pool(GRAPHS, CONCURRENCY, async (i) => {
    const t = performance.now();
    const scope = scopes[i] as ReadScope;
    // As the reconciler does: evaluate, resolve what was undecided, evaluate again.
    for (let pass = 0; pass < 3; pass++) {
      const ledger = readAll(scope, observedOf[i] as ReturnType<typeof observedFromObjects>, nsOf(i));
      if (ledger.undecided.size === 0) break;
      await scope.resolve(ledger);
    }
    perGraph.push(performance.now() - t);
  });
  const coldMs = performance.now() - t0;
  const coldReviews = access.stats.reviews;
  const answers = access.size;
  gc?.();
  const heapAnswers = process.memoryUsage().heapUsed - heap0;

  // Warm: every Graph evaluated again within the TTL: no review, the guard's cost per read.
  const r1 = access.stats.reviews;
  const rounds = 5;
  const guarded: number[] = [];
  const plain: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t = performance.now();
    for (let i = 0; i < GRAPHS; i++)
      readAll(scopes[i] as ReadScope, observedOf[i] as ReturnType<typeof observedFromObjects>, nsOf(i));
    guarded.push(((performance.now() - t) * 1e6) / (GRAPHS * 12));
    t = performance.now();
    for (let i = 0; i < GRAPHS; i++) {
      const o = observedOf[i] as ReturnType<typeof observedFromObjects>;
      const ns = nsOf(i);
      for (let k = 0; k < 10; k++)
        o.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: `c${k}` });
      o.list('v1', 'ConfigMap', ns, { matchLabels: { app: 'x' } });
      o.get({ apiVersion: 'v1', kind: 'Secret', namespace: 'shared', name: 'db' });
    }
    plain.push(((performance.now() - t) * 1e6) / (GRAPHS * 12));
  }
  const warmReviews = access.stats.reviews - r1;

  // RBAC changes: one namespace's RoleBinding, then a ClusterRole (every answer).
  const rb: KubeObject = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'cm-reader', namespace: nsOf(0) },
    subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: nsOf(0) }],
  } as KubeObject;
  const nsScope = scopeOfChange({ plural: 'rolebindings', namespaced: true, binding: true }, [rb]);
  let r2 = access.stats.reviews;
  let t2 = performance.now();
  await access.recheck((s, c) => inScope(nsScope, s, c));
  const nsRecheck = { reviews: access.stats.reviews - r2, ms: performance.now() - t2 };
  const crScope = scopeOfChange({ plural: 'clusterroles', namespaced: false, binding: false }, [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cm-reader' } },
  ]);
  r2 = access.stats.reviews;
  t2 = performance.now();
  await access.recheck((s, c) => inScope(crScope, s, c));
  const crRecheck = { reviews: access.stats.reviews - r2, ms: performance.now() - t2 };

  const sorted = [...perGraph].sort((a, b) => a - b);
  const p95 = sorted[Math.floor(sorted.length * 0.95)] ?? 0;
  lines.push(
    measuredBy('readAccess.bench.ts', `load average ${loadAverage()} at the end`),
    `${GRAPHS} Graphs, each in its own namespace as its own ServiceAccount (no answer shared); each reads 10 ConfigMaps by name and one selector in its namespace (allowed through a RoleBinding) and a Secret in another namespace (refused). Fresh local control plane; one run, medians where stated.`,
    '',
    '| case | result |',
    '|---|---|',
    `| one SubjectAccessReview (median of 200) | ${median(single).toFixed(2)} ms |`,
    `| first reconcile of all ${GRAPHS} Graphs, cold cache, ${CONCURRENCY} at a time | ${coldReviews} reviews (${(coldReviews / GRAPHS).toFixed(1)} per Graph), ${(coldMs / 1000).toFixed(1)} s wall; added per Graph: median ${median(perGraph).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms |`,
    `| cached answers, heap | ${answers} answers, ${gc ? `${(heapAnswers / 1024 / 1024).toFixed(1)} MiB (${Math.round(heapAnswers / answers)} B per answer, with the benchmark's scopes and observed objects)` : 'n/a (run with --expose-gc)'} |`,
    `| every Graph evaluated again within the TTL | ${warmReviews} reviews; guarded read ${median(guarded).toFixed(0)} ns vs unguarded ${median(plain).toFixed(0)} ns (median of ${rounds} rounds of ${GRAPHS * 12} reads) |`,
    `| RoleBinding changed in one namespace → recheck | ${nsRecheck.reviews} reviews, ${nsRecheck.ms.toFixed(0)} ms |`,
    `| ClusterRole changed → recheck of every answer | ${crRecheck.reviews} reviews, ${(crRecheck.ms / 1000).toFixed(1)} s (8 in flight) |`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.argv.includes('--write')) writeReadmeSection(`## Read access checks\n\n${lines.join('\n')}\n`);
} finally {
  admin.close();
  await plane.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
