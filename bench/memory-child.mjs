// The controller process of bench/memory.bench.ts: the Graph controller from the compiled dist/ (what
// `npx kgraph controller` runs, no tsx in the heap), started with --expose-gc, answering the parent's
// requests over IPC: `measure`, `attribute` (destructive: what each cache retains) (after two full GCs: RSS, heap used, V8 heap spaces, and what the
// controller's caches hold), `snapshot` (a V8 heap snapshot to a file) and `stop`.
// Plain JavaScript so that nothing but the shipped code is loaded.
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';

const dist = new URL('../dist/', import.meta.url);
const { KubeConfig } = await import(new URL('kube/kubeconfig.js', dist).href);
const { default: pino } = await import('pino');
const { GraphController } = await import(new URL('controller/controller.js', dist).href);
const { RestClient } = await import(new URL('kube/rest.js', dist).href);

const [kubeconfig, namespace, concurrency] = process.argv.slice(2);
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
const client = new RestClient(kc);
const controller = new GraphController({
  client,
  // `*`: every namespace (cluster-wide informers).
  ...(namespace === '*' ? {} : { namespaces: [namespace] }),
  concurrency: Number(concurrency),
  log: pino({ level: 'silent' }),
});
await controller.start();

const jsonBytes = (v) => Buffer.byteLength(JSON.stringify(v) ?? '');

/** What the caches hold, as JSON bytes (an estimate of their share of the heap, not the heap size). */
function caches() {
  const out = {
    objects: 0,
    objectBytes: 0,
    managedFieldsBytes: 0,
    graphs: 0,
    graphBytes: 0,
    compiled: 0,
    sharedCompiles: 0,
  };
  // Private fields are plain properties at run time; the bench reads them to attribute memory.
  const watches = controller.watches;
  for (const inf of watches.informers.values()) {
    for (const o of inf.store.values()) {
      out.objects += 1;
      out.objectBytes += jsonBytes(o);
      out.managedFieldsBytes += jsonBytes(o.metadata?.managedFields ?? []);
    }
  }
  for (const inf of controller.graphInformers) {
    for (const o of inf.store.values()) {
      out.graphs += 1;
      out.graphBytes += jsonBytes(o);
      out.managedFieldsBytes += jsonBytes(o.metadata?.managedFields ?? []);
    }
  }
  const compiled = controller.reconciler.compiled;
  out.compiled = compiled instanceof Map ? compiled.size : 0;
  out.sharedCompiles = controller.reconciler.deps.compiler.sharedHits ?? 0;
  return out;
}

function measure() {
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  const h = getHeapStatistics();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
  const q = controller.queue.stats();
  const cpu = process.cpuUsage();
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    totalPhysical: h.total_physical_size,
    spaces,
    idle: q.depth === 0 && q.processing === 0,
    // The controller's own requests since its start (its client's counters).
    requests: client.counters.total(),
    writes: client.counters.writes(),
    byVerb: client.counters.snapshot(),
    caches: caches(),
  };
}

/**
 * What each structure retains: clears them one after the other (the controller is useless afterwards)
 * and records the heap freed by each, after two full GCs. Order matters little: the structures share
 * nothing but strings interned by V8.
 */
function attribute() {
  const heap = () => {
    globalThis.gc?.();
    globalThis.gc?.();
    return process.memoryUsage().heapUsed;
  };
  const r = controller.reconciler;
  const steps = [
    ['compiled graphs (reconciler)', () => r.compiled.clear()],
    ['apply memory (no-op apply digests)', () => r.applies.entries.clear()],
    [
      'status memory (last status copies, wait backoffs)',
      () => {
        r.lastStatus.clear();
        r.waits.attempts.clear();
      },
    ],
    [
      'event routes (interest per Graph)',
      () => {
        controller.routes.routes.clear();
        controller.routes.interestOf.clear();
      },
    ],
    [
      'write overlays (recent writes, echo records)',
      () => {
        controller.watches.recent.clear();
        controller.watches.ownWrites.byObject.clear();
      },
    ],
    ['read-access answers', () => controller.reads.decisions.clear()],
    [
      'child informer caches',
      () => {
        for (const inf of controller.watches.informers.values()) inf.store.clear();
      },
    ],
    [
      'Graph informer cache',
      () => {
        for (const inf of controller.graphInformers) inf.store.clear();
      },
    ],
  ];
  const out = [];
  let before = heap();
  for (const [name, clear] of steps) {
    try {
      clear();
    } catch (e) {
      out.push({ name, bytes: Number.NaN, error: String(e) });
      continue;
    }
    const after = heap();
    out.push({ name, bytes: before - after });
    before = after;
  }
  out.push({ name: 'remaining heap', bytes: before });
  return out;
}

process.on('message', async (msg) => {
  if (msg.type === 'measure') process.send({ id: msg.id, value: measure() });
  else if (msg.type === 'attribute') {
    process.send({ id: msg.id, value: attribute() });
  } else if (msg.type === 'snapshot') {
    globalThis.gc?.();
    process.send({ id: msg.id, value: writeHeapSnapshot(msg.path) });
  } else if (msg.type === 'stop') {
    await controller.stop();
    controller.client.close();
    process.send({ id: msg.id, value: true });
    process.exit(0);
  }
});
process.send({ type: 'started' });
