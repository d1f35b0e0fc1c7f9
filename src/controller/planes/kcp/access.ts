/**
 * Claim acceptance on kcp: a consumer-plane claim is accepted in a logical cluster iff the consumer's
 * APIBinding to the blueprint's export accepts it — `spec.permissionClaims[]` holds the same group,
 * resource and identity hash as the export's claim (`status.exportPermissionClaims`), with
 * `state: Accepted` and every verb the node needs. kcp's virtual workspace enforces the same rule; the
 * pre-check turns it into a `ClaimNotAccepted` condition and keeps refused writes from being sent.
 *
 * The binding is read through the export's virtual workspace (which serves, read-only, exactly the
 * bindings to that export), so `client` — the consumer-plane client of the pass — is export-specific
 * and part of the cache key. Claims are workspace-wide on kcp: the namespace does not matter.
 */
import type { KubeObject, RestClient } from '../../../kube/index.ts';
import { APIS_KCP_V1ALPHA2, bindingView, type KcpBindingView } from '../../../kube/kcp.ts';
import type { Acceptance, ClaimChecker } from '../access.ts';

interface Entry {
  at: number;
  answer: Promise<Acceptance>;
}

const claimName = (gr: { group: string; resource: string }): string =>
  gr.group ? `${gr.resource}.${gr.group}` : gr.resource;

/** The verdict of one binding on one claim (pure; tests call it directly). */
export function bindingAccepts(
  binding: KcpBindingView | undefined,
  gr: { group: string; resource: string },
  verbs: readonly string[],
  clusterID: string,
): Acceptance {
  const name = claimName(gr);
  if (!binding)
    return {
      accepted: false,
      missing: [...verbs],
      detail: `logical cluster ${clusterID} has no APIBinding to this export`,
    };
  const exported = binding.exportClaims.find(
    (c) => (c.group ?? '') === gr.group && c.resource === gr.resource,
  );
  if (!exported)
    return {
      accepted: false,
      missing: [...verbs],
      detail: `APIBinding ${binding.name} does not list claim ${name} yet (the export's claims are not applied to it)`,
    };
  const hash = exported.identityHash ?? '';
  const decision = binding.claims.find(
    (c) => (c.group ?? '') === gr.group && c.resource === gr.resource && (c.identityHash ?? '') === hash,
  );
  if (decision?.state !== 'Accepted') {
    return {
      accepted: false,
      missing: [...verbs],
      detail: `claim ${name} is ${decision?.state === 'Rejected' ? 'rejected' : 'not accepted'} on APIBinding ${binding.name} in logical cluster ${clusterID}`,
    };
  }
  const granted = new Set(decision.verbs ?? []);
  const offered = new Set(exported.verbs ?? []);
  const missing = verbs.filter(
    (v) => !(granted.has(v) || granted.has('*')) || !(offered.has(v) || offered.has('*')),
  );
  if (missing.length > 0)
    return {
      accepted: false,
      missing,
      detail: `claim ${name} is accepted on APIBinding ${binding.name} in logical cluster ${clusterID} without verbs ${missing.join(',')}`,
    };
  return { accepted: true, missing: [] };
}

export class BindingClaimAccess implements ClaimChecker {
  private readonly cache = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** Binding reads sent (tests and metrics). */
  reads = 0;

  constructor(ttlMs: number, now: () => number = Date.now) {
    this.ttlMs = ttlMs;
    this.now = now;
  }

  check(
    clusterID: string,
    client: RestClient,
    gr: { group: string; resource: string },
    _namespace: string,
    verbs: readonly string[],
  ): Promise<Acceptance> {
    const k = `${clusterID}|${gr.group}|${gr.resource}|${client.server}|${verbs.join(',')}`;
    const hit = this.cache.get(k);
    if (hit && this.now() - hit.at <= this.ttlMs) return hit.answer;
    const answer = (async (): Promise<Acceptance> => {
      this.reads += 1;
      const { items } = await client.listAll({ apiVersion: APIS_KCP_V1ALPHA2, plural: 'apibindings' });
      const binding = (items as KubeObject[]).map(bindingView)[0];
      return bindingAccepts(binding, gr, verbs, clusterID);
    })();
    this.cache.set(k, { at: this.now(), answer });
    answer.catch(() => this.cache.delete(k));
    return answer;
  }

  invalidate(clusterID: string, group: string, resource: string, _namespace: string): void {
    const prefix = `${clusterID}|${group}|${resource}|`;
    for (const k of [...this.cache.keys()]) if (k.startsWith(prefix)) this.cache.delete(k);
  }

  forgetCluster(clusterID: string): void {
    for (const k of [...this.cache.keys()]) if (k.startsWith(`${clusterID}|`)) this.cache.delete(k);
  }
}
