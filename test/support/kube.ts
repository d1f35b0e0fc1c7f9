/** REST clients and per-test namespaces on the shared test control plane. */
import { RestClient } from '../../src/kube/rest.ts';
import { sharedControlPlane, uniqueName } from './controlPlane.ts';

let admin: Promise<RestClient> | undefined;

/** An admin (system:masters) client for the shared control plane. */
export function adminClient(): Promise<RestClient> {
  admin ??= sharedControlPlane().then((cp) => new RestClient(cp.kc));
  return admin;
}

/** Creates a fresh namespace for one test and returns its name. Tests never wait for its deletion. */
export async function testNamespace(prefix: string): Promise<string> {
  const client = await adminClient();
  const name = uniqueName(prefix);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
