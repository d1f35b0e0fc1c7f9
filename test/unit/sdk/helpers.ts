import assert from 'node:assert/strict';
import {
  type AuthoredPodSpec,
  type ClusterDef,
  createSession,
  type Manifest,
  type Scope,
  SdkError,
  type Session,
  type SynthResult,
} from '../../../src/sdk/index.ts';

export const multiNodeCluster: ClusterDef = {
  availability: 'node',
  capabilities: { multiNode: true, daemonSets: true, privilegedContainers: true, metricsApi: 'provided' },
  topology: { failureDomainKeys: ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'] },
};

export function setup(
  cluster: ClusterDef = multiNodeCluster,
  ns = 'shop',
  instance = 'shop',
): { session: Session; scope: Scope } {
  const session = createSession(cluster);
  return { session, scope: session.scope({ instanceName: instance, namespaceName: ns }) };
}

export function find(r: SynthResult, kind: string, name: string): Manifest {
  const m = r.manifests.find((x) => x.kind === kind && x.metadata.name === name);
  assert.ok(
    m,
    `no ${kind}/${name} in output (have ${r.manifests.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')})`,
  );
  return m;
}

export function dependsOn(m: Manifest): string[] {
  const v = m.metadata.annotations?.['kix.run/depends-on'];
  return v === undefined ? [] : v.split(',');
}

export function hashOf(r: SynthResult, kind: string, name: string): string {
  const n = r.graph.nodes.find((x) => x.kind === kind && x.name === name);
  assert.ok(n, `no node ${kind}/${name}`);
  return n.hash;
}

/** Asserts that `f` throws an SdkError with the given code (and message part). */
export function throwsCode(f: () => unknown, code: string, part?: string | RegExp): SdkError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  assert.ok(
    caught instanceof SdkError,
    `expected SdkError ${code}, got ${caught === undefined ? 'no error' : String(caught)}`,
  );
  assert.equal(caught.code, code, caught.message);
  if (part !== undefined) {
    if (typeof part === 'string')
      assert.ok(caught.message.includes(part), `message "${caught.message}" lacks "${part}"`);
    else assert.match(caught.message, part);
  }
  return caught;
}

/**
 * Minimal pod spec for workloads. `extra` is untyped on purpose: tests also feed the SDK what only an
 * untyped (JavaScript) caller could, to check its run-time errors.
 */
export function podSpec(extra: Record<string, unknown> = {}): AuthoredPodSpec {
  return { containers: [{ name: 'app', image: 'ghcr.io/acme/app:1.0.0' }], ...extra } as AuthoredPodSpec;
}

export function get(o: unknown, path: string): unknown {
  let cur: unknown = o;
  for (const part of path.split('.')) {
    if (cur === null || cur === undefined) return undefined;
    cur = /^\d+$/.test(part) ? (cur as unknown[])[Number(part)] : (cur as Record<string, unknown>)[part];
  }
  return cur;
}
