/**
 * The RGD part of `kgraph up`: apply the example ResourceGraphDefinitions, wait until their kinds are
 * served (state Active), apply the example instances, then follow each instance's status — state,
 * conditions, the projected fields — until it is ACTIVE, and print instance → children.
 */
import { relative } from 'node:path';
import { inspectInstance } from '../../controller/rgd/inspect.ts';
import { HEARTBEAT_MS } from '../../deploy/progress.ts';
import { kubectlName, kubectlNameIn, kubectlType } from '../../diag/objectName.ts';
import { KRO_API_VERSION } from '../../graph/kroApi.ts';
import type { RestClient } from '../../kube/rest.ts';
import type { KubeObject } from '../../kube/types.ts';
import { formatInstance } from '../commands/get.ts';

interface Doc {
  file: string;
  object: KubeObject;
}

const FIELD_MANAGER = 'kgraph-up';
const RGD = { apiVersion: KRO_API_VERSION, kind: 'ResourceGraphDefinition' };

function stateOf(o: KubeObject | undefined): string | undefined {
  return (o?.status as { state?: string } | undefined)?.state;
}

function readyOf(o: KubeObject | undefined) {
  const cs = (
    o?.status as
      | { conditions?: { type: string; status: string; message?: string; observedGeneration?: number }[] }
      | undefined
  )?.conditions;
  return cs?.find((c) => c.type === 'Ready');
}

/** `regionalconfig.kro.run/shop -n kgraph-examples`, as kubectl names it (diag/objectName.ts). */
function key(o: KubeObject): string {
  return kubectlNameIn({
    apiVersion: o.apiVersion,
    kind: o.kind,
    namespace: o.metadata.namespace,
    name: o.metadata.name ?? '',
  });
}

const rgdName = (name: string): string => kubectlName({ ...RGD, name });

/** Applies the RGDs; with a controller, waits until they are Active and applies the instances. Returns the Active RGD names. */
export async function applyRgdExamples(
  client: RestClient,
  rgds: readonly Doc[],
  instances: readonly Doc[],
  controllerRunning: boolean,
  timeoutMs: number,
  say: (l: string) => void,
): Promise<Set<string>> {
  const rel = (f: string): string => relative(process.cwd(), f) || f;
  for (const d of rgds) {
    await client.apply(d.object, { fieldManager: FIELD_MANAGER, force: true });
    say(`applied  ${rgdName(d.object.metadata.name ?? '')} (${rel(d.file)})`);
  }
  const active = new Set<string>();
  if (!controllerRunning || rgds.length === 0) return active;
  say(`waiting for ${rgds.length} ResourceGraphDefinition(s) to serve their kinds…`);
  const started = Date.now();
  const deadline = started + timeoutMs;
  let lastLine = started;
  while (active.size < rgds.length && Date.now() < deadline) {
    for (const d of rgds) {
      const name = d.object.metadata.name ?? '';
      if (active.has(name)) continue;
      const r = await client.getOrUndefined({ ...RGD, name });
      if (stateOf(r) === 'Active' && readyOf(r)?.observedGeneration === r?.metadata.generation) {
        active.add(name);
        const s = (r?.spec as { schema?: { kind?: string; group?: string; apiVersion?: string } } | undefined)
          ?.schema;
        const served = kubectlType({
          apiVersion: `${s?.group ?? 'kro.run'}/${s?.apiVersion}`,
          kind: s?.kind ?? '',
        });
        say(`active   ${rgdName(name)}: serves ${s?.kind} (${served})`);
        lastLine = Date.now();
      }
    }
    if (active.size < rgds.length && Date.now() - lastLine >= HEARTBEAT_MS) {
      const waiting = rgds.map((d) => d.object.metadata.name ?? '').filter((n) => !active.has(n));
      say(
        `${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s still waiting for ${waiting.map(rgdName).join(', ')} to serve their kinds`,
      );
      lastLine = Date.now();
    }
    if (active.size < rgds.length) await new Promise((res) => setTimeout(res, 300));
  }
  for (const d of rgds) {
    const name = d.object.metadata.name ?? '';
    if (!active.has(name)) {
      const r = await client.getOrUndefined({ ...RGD, name });
      say(`inactive ${rgdName(name)}: ${readyOf(r)?.message ?? 'no status yet'}`);
    }
  }
  for (const d of instances) {
    await client.apply(d.object, { fieldManager: FIELD_MANAGER, force: true });
    say(`applied  ${key(d.object)} (${rel(d.file)})`);
  }
  return active;
}

/** Follows the instances until every one is ACTIVE for its generation; prints progress and the tree. */
export async function waitForInstances(
  client: RestClient,
  rgds: readonly Doc[],
  instances: readonly Doc[],
  active: Set<string>,
  timeoutMs: number,
  say: (l: string) => void,
  heartbeatMs = HEARTBEAT_MS,
): Promise<boolean> {
  if (instances.length === 0 || active.size === 0) return instances.length === 0;
  say(
    `waiting up to ${Math.round(timeoutMs / 1000)}s for ${instances.length} RGD instance(s) to become ACTIVE…`,
  );
  const started = Date.now();
  const deadline = started + timeoutMs;
  const last = new Map<string, string>();
  const secs = () => ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  // Plain progress: a line per change, and a heartbeat naming what is awaited when nothing changed.
  let lastLine = Date.now();
  let observed: KubeObject[] = [];
  for (;;) {
    observed = await Promise.all(
      instances.map(async (d) => (await client.getOrUndefined(target(d.object))) ?? d.object),
    );
    let all = true;
    for (const o of observed) {
      const ready = readyOf(o);
      const fields = Object.entries((o.status ?? {}) as Record<string, unknown>)
        .filter(([k]) => k !== 'conditions' && k !== 'state')
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(' ');
      const line = `${stateOf(o) ?? 'PENDING'}${ready && ready.status !== 'True' ? ` (${ready.message ?? ''})` : ''}${fields ? `  ${fields}` : ''}`;
      if (last.get(key(o)) !== line) {
        last.set(key(o), line);
        say(`${secs()}s ${key(o)}  ${line}`);
        lastLine = Date.now();
      }
      all &&= isActive(o);
    }
    if (all || Date.now() > deadline) break;
    if (Date.now() - lastLine >= heartbeatMs) {
      const waiting = observed.filter((o) => !isActive(o)).map((o) => `${key(o)} (${last.get(key(o))})`);
      say(`${secs()}s still waiting for ${waiting.join(', ')}`);
      lastLine = Date.now();
    }
    await new Promise((res) => setTimeout(res, 300));
  }
  for (const o of observed) {
    const rgd = rgds.find((d) => {
      const s = (d.object.spec as { schema?: { kind?: string } }).schema;
      return s?.kind === o.kind;
    });
    const live = rgd && (await client.getOrUndefined({ ...RGD, name: rgd.object.metadata.name ?? '' }));
    if (live) say(formatInstance(await inspectInstance(client, live, o)));
  }
  say('explore: kubectl get rgd; kubectl get <kind> -A; npx kgraph get <kind> -n <namespace>');
  return observed.every((o) => stateOf(o) === 'ACTIVE');
}

function isActive(o: KubeObject): boolean {
  return stateOf(o) === 'ACTIVE' && readyOf(o)?.observedGeneration === o.metadata.generation;
}

function target(o: KubeObject) {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    name: o.metadata.name ?? '',
  };
}
