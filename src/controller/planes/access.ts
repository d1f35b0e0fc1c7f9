/**
 * Claim acceptance on the consumer plane (design/planes.md §10.3): a claim is accepted for (cluster, GR,
 * namespace) iff a SelfSubjectAccessReview with kgraph's consumer credentials allows every verb of the
 * claim there. Answers are cached per (cluster, GR, namespace) for at most the TTL; a 403 from the API
 * server drops the entry. Nothing that would be refused is sent.
 */
import { type RestClient, selfSubjectAccessReview } from '../../kube/index.ts';

export interface Acceptance {
  accepted: boolean;
  /** Verbs the review refused (empty when accepted). */
  missing: string[];
  /** Why, in the backend's words (the condition message uses it when set). */
  detail?: string;
}

/**
 * How a backend decides whether a consumer claim is accepted: SelfSubjectAccessReviews on plain clusters
 * (ClaimAccess), the consumer's APIBinding on kcp (kcp/access.ts). `client` is the consumer-plane client
 * the pass uses for that cluster.
 */
export interface ClaimChecker {
  check(
    clusterID: string,
    client: RestClient,
    gr: { group: string; resource: string },
    namespace: string,
    verbs: readonly string[],
  ): Promise<Acceptance>;
  /** A 403 on this cluster, GR and namespace: ask again next time. */
  invalidate(clusterID: string, group: string, resource: string, namespace: string): void;
  /** Forget everything of one cluster (deregistration, identity change). */
  forgetCluster(clusterID: string): void;
}

interface Entry {
  at: number;
  answer: Promise<Acceptance>;
}

export class ClaimAccess implements ClaimChecker {
  private readonly cache = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** Reviews sent (tests and metrics). */
  reviews = 0;

  constructor(ttlMs: number, now: () => number = Date.now) {
    this.ttlMs = ttlMs;
    this.now = now;
  }

  private key(clusterID: string, group: string, resource: string, namespace: string): string {
    return `${clusterID}|${group}|${resource}|${namespace}`;
  }

  check(
    clusterID: string,
    client: RestClient,
    gr: { group: string; resource: string },
    namespace: string,
    verbs: readonly string[],
  ): Promise<Acceptance> {
    const k = `${this.key(clusterID, gr.group, gr.resource, namespace)}|${verbs.join(',')}`;
    const hit = this.cache.get(k);
    if (hit && this.now() - hit.at <= this.ttlMs) return hit.answer;
    const answer = (async (): Promise<Acceptance> => {
      const results = await Promise.all(
        verbs.map(async (verb) => {
          this.reviews += 1;
          const r = await selfSubjectAccessReview(client, {
            verb,
            group: gr.group,
            resource: gr.resource,
            ...(namespace ? { namespace } : {}),
          });
          return { verb, allowed: r.allowed };
        }),
      );
      const missing = results.filter((r) => !r.allowed).map((r) => r.verb);
      return { accepted: missing.length === 0, missing };
    })();
    this.cache.set(k, { at: this.now(), answer });
    answer.catch(() => this.cache.delete(k));
    return answer;
  }

  /** A 403 on this cluster, GR and namespace: ask again next time. */
  invalidate(clusterID: string, group: string, resource: string, namespace: string): void {
    const prefix = this.key(clusterID, group, resource, namespace);
    for (const k of [...this.cache.keys()]) if (k.startsWith(`${prefix}|`)) this.cache.delete(k);
  }

  /** Forget everything of one cluster (deregistration, identity change). */
  forgetCluster(clusterID: string): void {
    for (const k of [...this.cache.keys()]) if (k.startsWith(`${clusterID}|`)) this.cache.delete(k);
  }
}
