/**
 * What one request of each kind the RGD controller sends costs the API server (what bounds
 * kgraph against the bare server-side-apply loop). On a fresh local control plane (kube-testenv: the
 * API server with etcd embedded, no other controllers), kgraph's RGD controller converges one instance
 * of bench/vs-kro/rgd.ts and is stopped; then the benchmark sends, one after the other, N requests of each
 * kind shaped as the controller sends them, each a real change:
 * - instance metadata apply (the ApplySet parent's labels, annotations and finalizer, kro.run/applyset-parent),
 * - instance status apply (the status subresource, kgraph-controller),
 * - child ConfigMap apply (the derived child, its labels and owner reference, the controller's manager),
 * each with the server's default field validation and with `fieldValidation=Ignore` (what the controller
 * sends, src/controller/core/writeDefaults.ts), and the watch fan-out: the child apply again with W watches of
 * the namespace's ConfigMaps open (in this process), the added CPU per event and watcher.
 * CPU is the control-plane process's user + system time from /proc over the N requests, less its idle
 * rate (measured at the start of each round) over the same wall time; per request, median of --rounds
 * (every case in each round, each round starting at another, so load drift hits all alike).
 *
 * Run: node --import tsx bench/vs-kro/apicost.bench.ts [--write] [--requests 200] [--rounds 9] [--watchers 32]
 *        [--pprof DIR] [--pprof-seconds 10] (after the rounds, a CPU profile of the server per case, requests
 *        back to back: DIR/<case>-<directive>.pb.gz, for `go tool pprof -top -focus=UnmarshalStrict FILE`)
 * With --write the table replaces the `## API server cost per request` section of bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { controllerClient } from '../../src/controller/core/writeDefaults.ts';
import { RgdController } from '../../src/controller/rgd/controller.ts';
import { installRgdCrd } from '../../src/controller/rgd/crd.ts';
import { PARENT_MANAGER } from '../../src/controller/rgd/names.ts';
import type { FieldValidation, KubeObject, RestClient } from '../../src/kube/index.ts';
import { Informer } from '../../src/kube/informer.ts';
import { loadAverage, measuredBy, median, startBenchPlane, writeReadmeSection } from '../support.ts';
import { serverCpuProfile } from './apiserver.ts';
import { treeCpuMs } from './proc.ts';
import { benchInstance, benchRgd, INSTANCE_API, instanceActive, RGD_NAME } from './rgd.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('--requests', 200);
const ROUNDS = arg('--rounds', 9);
const WATCHERS = arg('--watchers', 32);
const PPROF_DIR = (() => {
  const i = process.argv.indexOf('--pprof');
  return i >= 0 ? process.argv[i + 1] : undefined;
})();
const PPROF_S = arg('--pprof-seconds', 10);
const NS = 'bench';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

const bench = await startBenchPlane('apicost');
const { admin, plane } = bench;
const planePid = plane.process.pid ?? 0;
const cpu = () => treeCpuMs(planePid);

try {
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await installRgdCrd(admin);
  // kgraph's own controller makes the CRD, the instance and its children as it does in the comparison.
  const controller = new RgdController({
    client: controllerClient(admin),
    installCrd: false,
    concurrency: 1,
    log: pino({ level: 'warn' }),
  });
  await controller.start();
  await admin.apply(benchRgd(), { fieldManager: 'bench', force: true });
  await until('RGD Active', async () => {
    const r = await admin.getOrUndefined({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      name: RGD_NAME,
    });
    return (r?.status as { state?: string } | undefined)?.state === 'Active' ? true : undefined;
  });
  admin.discovery.invalidate(INSTANCE_API.apiVersion);
  const instRef = { ...INSTANCE_API, namespace: NS, name: 'app0' };
  await until('instance created', async () =>
    admin.create(benchInstance(0, NS)).then(
      () => true,
      () => undefined,
    ),
  );
  const inst = await until('instance ACTIVE', async () => {
    const o = await admin.getOrUndefined(instRef);
    return o && instanceActive(o) ? o : undefined;
  });
  await controller.stop();
  await sleep(1000);

  const child = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'app0-derived' });
  const childManager =
    child.metadata.managedFields?.find((f) => f.operation === 'Apply')?.manager ?? 'kgraph-controller';
  const statusManager =
    inst.metadata.managedFields?.find((f) => f.subresource === 'status' && f.operation === 'Apply')
      ?.manager ?? 'kgraph-controller';

  type Send = (client: RestClient, seq: number, fv: FieldValidation | undefined) => Promise<unknown>;
  const withFv = (fv: FieldValidation | undefined) => (fv ? { fieldValidation: fv } : {});
  const metadataApply: Send = (c, seq, fv) =>
    c.apply(
      {
        ...INSTANCE_API,
        metadata: {
          name: 'app0',
          namespace: NS,
          uid: inst.metadata.uid,
          labels: inst.metadata.labels ?? {},
          annotations: { ...(inst.metadata.annotations ?? {}), 'bench.kgraph.dev/seq': String(seq) },
          finalizers: inst.metadata.finalizers ?? [],
        },
      } as KubeObject,
      { fieldManager: PARENT_MANAGER, force: true, ...withFv(fv) },
    );
  const statusApply: Send = (c, seq, fv) =>
    c.applyStatus(
      {
        ...INSTANCE_API,
        metadata: { name: 'app0', namespace: NS },
        status: { ...(inst.status as Record<string, unknown>), derived: `v${seq}` },
      } as KubeObject,
      { fieldManager: statusManager, force: true, ...withFv(fv) },
    );
  const childApply: Send = (c, seq, fv) =>
    c.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: child.metadata.name,
          namespace: NS,
          labels: child.metadata.labels ?? {},
          ...(child.metadata.ownerReferences ? { ownerReferences: child.metadata.ownerReferences } : {}),
        },
        data: { ...(child.data as Record<string, string>), seq: String(seq) },
      } as KubeObject,
      { fieldManager: childManager, force: true, ...withFv(fv) },
    );

  interface Case {
    name: string;
    send: Send;
    fv: FieldValidation | undefined;
    watchers: number;
  }
  const cases: Case[] = [
    { name: 'instance metadata apply', send: metadataApply, fv: undefined, watchers: 0 },
    { name: 'instance metadata apply', send: metadataApply, fv: 'Ignore', watchers: 0 },
    { name: 'instance status apply', send: statusApply, fv: undefined, watchers: 0 },
    { name: 'instance status apply', send: statusApply, fv: 'Ignore', watchers: 0 },
    { name: 'child ConfigMap apply', send: childApply, fv: undefined, watchers: 0 },
    { name: 'child ConfigMap apply', send: childApply, fv: 'Ignore', watchers: 0 },
    { name: 'child ConfigMap apply', send: childApply, fv: 'Ignore', watchers: WATCHERS },
  ];
  const key = (c: Case) => `${c.name}|${c.fv ?? 'default'}|${c.watchers}`;
  const perRequest = new Map<string, number[]>();
  const wallPer = new Map<string, number[]>();
  let seq = 0;
  // Warm-up: every kind once through each path (JIT, caches, the first managedFields conversions).
  for (const c of cases) for (let i = 0; i < 20; i++) await c.send(admin, ++seq, c.fv);

  const loads: string[] = [loadAverage()];
  for (let r = 0; r < ROUNDS; r++) {
    // The plane's idle rate at the start of the round (nothing written, no watch of ours open).
    const i0 = cpu();
    const it0 = performance.now();
    await sleep(3000);
    const idleRate = (cpu() - i0) / (performance.now() - it0);
    // Each round starts at another case, so that load drifting over a round hits every case alike.
    const order = cases.map((_, i) => cases[(i + r) % cases.length] as Case);
    for (const c of order) {
      const watches: Informer[] = [];
      for (let w = 0; w < c.watchers; w++) {
        const inf = new Informer(admin, { target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS } });
        inf.start();
        watches.push(inf);
      }
      await Promise.all(watches.map((w) => w.waitForSync()));
      if (c.watchers > 0) await sleep(500);
      const c0 = cpu();
      const t0 = performance.now();
      for (let i = 0; i < N; i++) await c.send(admin, ++seq, c.fv);
      const wall = performance.now() - t0;
      // Let the watch events drain before reading the CPU (they are sent after the write returns).
      if (c.watchers > 0) await sleep(300);
      const spent = cpu() - c0 - idleRate * (performance.now() - t0);
      (perRequest.get(key(c)) ?? perRequest.set(key(c), []).get(key(c)))?.push(spent / N);
      (wallPer.get(key(c)) ?? wallPer.set(key(c), []).get(key(c)))?.push(wall / N);
      for (const w of watches) await w.stop();
    }
    loads.push(loadAverage());
    process.stderr.write(
      `round ${r + 1} (idle ${(idleRate * 1000).toFixed(0)} ms/s): ${cases.map((c) => `${c.name} (${c.fv ?? 'default'}${c.watchers ? `, ${c.watchers} watches` : ''}) ${perRequest.get(key(c))?.at(-1)?.toFixed(2)} ms`).join('; ')}; load ${loadAverage()}\n`,
    );
  }

  if (PPROF_DIR) {
    // One CPU profile of the server per case (no watches): requests sent back to back for PPROF_S seconds.
    mkdirSync(PPROF_DIR, { recursive: true });
    for (const c of cases.filter((x) => x.watchers === 0)) {
      const profile = serverCpuProfile(bench.kc, PPROF_S);
      const end = performance.now() + PPROF_S * 1000;
      let sent = 0;
      while (performance.now() < end) {
        await c.send(admin, ++seq, c.fv);
        sent += 1;
      }
      const file = join(PPROF_DIR, `${c.name.replace(/\W+/g, '-')}-${c.fv ?? 'default'}.pb.gz`);
      writeFileSync(file, await profile);
      process.stderr.write(`profile of ${sent} requests: ${file}\n`);
    }
  }

  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const med = (c: Case) => median(perRequest.get(key(c)) ?? []);
  const byName = (name: string, fv: FieldValidation | undefined, watchers = 0) =>
    cases.find((c) => c.name === name && c.fv === fv && c.watchers === watchers) as Case;
  const rows = ['instance metadata apply', 'instance status apply', 'child ConfigMap apply'].map((name) => {
    const d = byName(name, undefined);
    const ig = byName(name, 'Ignore');
    return `| ${name} | ${ms(med(d))} | ${ms(med(ig))} | ${(med(ig) / med(d)).toFixed(2)}× | ${ms(median(wallPer.get(key(ig)) ?? []))} |`;
  });
  const fan = byName('child ConfigMap apply', 'Ignore', WATCHERS);
  const fanPer = (med(fan) - med(byName('child ConfigMap apply', 'Ignore'))) / WATCHERS;
  const lines = [
    measuredBy(
      'vs-kro/apicost.bench.ts',
      `1-min load ${loads.join(', ')} (start, after each round); ${ROUNDS} rounds of ${N} sequential requests per kind, medians`,
    ),
    'A fresh local control plane (kube-testenv: kube-apiserver with etcd embedded, one process, no other controllers); kgraph\'s RGD controller converged one instance of bench/vs-kro/rgd.ts and stopped; then each request kind as the controller sends it, each a real change, one after the other. Server CPU = the plane process\'s user + system time (/proc) over the requests less its idle rate (measured at the start of each round), per request; every case in each round, each round starting at another. "default" sends no fieldValidation (the server then uses Warn), "Ignore" what the controllers send (src/controller/core/writeDefaults.ts).',
    '',
    '| request | server CPU, default | server CPU, fieldValidation=Ignore | Ignore/default | round trip (Ignore) |',
    '|---|---|---|---|---|',
    ...rows,
    `| watch fan-out: each open watch of the namespace's ConfigMaps, per event | ${ms(fanPer)} (child apply with ${WATCHERS} watches: ${ms(med(fan))}) | | | |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.argv.includes('--write'))
    writeReadmeSection(`## API server cost per request\n\n${lines.join('\n')}\n`);
} finally {
  await bench.stop();
}
