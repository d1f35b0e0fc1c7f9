/**
 * The shard coordinator (design/sharding.md §3). Every replica runs its observing half: every retry
 * period it reads the membership Leases and notes how long *it* has seen each one unchanged (never the
 * holder's renewTime: clocks differ). The replica holding the leader Lease also plans: it judges the
 * replicas live from those observations, plans the next shard map from them and the epochs they
 * acknowledged (shardPlan.ts) and writes it when it changed; it deletes Leases of replicas gone for ten
 * lease durations. Observing before coordinating is what makes a successor fast: when it takes over, a
 * dead coordinator's Lease has already been unchanged in its eyes for as long as the leader Lease it
 * waited out, so its buckets move in the successor's first round instead of one lease duration later.
 */
import type { Logger } from 'pino';
import { isRecord } from '../../diag/record.ts';
import { isApiError, type KubeObject, type RestClient, sleep } from '../../kube/index.ts';
import type { AuditResult, ChildLabelAudit } from './childLabelAudit.ts';
import { ANNOTATION_ACKED_EPOCH, ANNOTATION_REPLICA_IDENTITY, LABEL_REPLICA } from './replicaLease.ts';
import { shardMapOf, shardMapTarget, writeShardMap } from './shardMapStore.ts';
import { emptyShardMap, nextShardMap, type ShardMap, withChildrenLabelling } from './shardPlan.ts';

export interface CoordinatorOptions {
  client: RestClient;
  namespace: string;
  leaseDurationMs: number;
  retryPeriodMs: number;
  log: Logger;
  /** Told after every map written. */
  onMapWritten?: (map: ShardMap) => void;
  /**
   * Finds children stamped without a bucket (the two-phase upgrade, childLabelAudit.ts): run once per
   * term of coordination, then again over the kinds that held some until none is left.
   * Absent: the map never asks the replicas to cache children whole.
   */
  audit?: ChildLabelAudit;
}

interface Observed {
  rv: string;
  at: number;
  identity: string;
  acked: number;
  held: boolean;
}

export class ShardCoordinator {
  private readonly o: CoordinatorOptions;
  private readonly observed = new Map<string, Observed>();
  private loop: Promise<void> | undefined;
  private abort: AbortController | undefined;
  /** Ends the current wait between rounds early. */
  private kick: AbortController | undefined;
  /** Map writes since start (tests, metrics). */
  writes = 0;
  /** Set while this replica holds the leader Lease: it plans and writes the map. */
  private planning = false;
  /** The last audit of unlabelled children of this term; undefined until the first one ends. */
  private audited: AuditResult | undefined;
  private auditing: Promise<void> | undefined;
  private auditedAt = 0;

  constructor(opts: CoordinatorOptions) {
    this.o = opts;
  }

  start(): void {
    if (this.loop) return;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    this.loop = (async () => {
      while (!signal.aborted) {
        try {
          await this.step(performance.now());
        } catch (e) {
          this.o.log.debug({ err: String(e) }, 'shard coordinator step failed');
        }
        this.kick = new AbortController();
        await sleep(this.o.retryPeriodMs, AbortSignal.any([signal, this.kick.signal])).catch(() => undefined);
      }
    })();
  }

  /** Plans and writes the map from the next round on (this replica became the coordinator). */
  coordinate(): void {
    this.planning = true;
    this.startAudit(undefined);
    // Planned at once, from what was observed so far, not after a retry period.
    this.kick?.abort();
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    await this.loop;
    await this.auditing;
    this.loop = undefined;
  }

  /** The identities whose Leases this coordinator judges live now. */
  live(now = performance.now()): string[] {
    return [...this.observed.values()]
      .filter((o) => o.held && now - o.at < this.o.leaseDurationMs)
      .map((o) => o.identity)
      .sort();
  }

  /** One round: observe the Leases; when coordinating, plan and write. */
  async step(now: number): Promise<void> {
    const { client, namespace } = this.o;
    const leases = await client.list(
      { apiVersion: 'coordination.k8s.io/v1', plural: 'leases', namespace },
      { labelSelector: LABEL_REPLICA },
    );
    const seen = new Set<string>();
    for (const lease of leases.items) {
      const name = lease.metadata.name ?? '';
      seen.add(name);
      const rv = lease.metadata.resourceVersion ?? '';
      const prev = this.observed.get(name);
      const spec = isRecord(lease.spec) ? lease.spec : {};
      const holder = typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '';
      const identity = lease.metadata.annotations?.[ANNOTATION_REPLICA_IDENTITY] ?? holder;
      const acked = Number(lease.metadata.annotations?.[ANNOTATION_ACKED_EPOCH] ?? '-1');
      // A Lease first seen counts from now: its holder gets one lease duration to show it renews.
      const at = prev && prev.rv === rv ? prev.at : now;
      this.observed.set(name, {
        rv,
        at,
        identity,
        acked: Number.isFinite(acked) ? acked : -1,
        held: holder !== '',
      });
      if (this.planning && now - at > 10 * this.o.leaseDurationMs) await this.deleteLease(lease);
    }
    for (const name of [...this.observed.keys()]) if (!seen.has(name)) this.observed.delete(name);
    if (!this.planning) return;

    const current = await client.getOrUndefined(shardMapTarget(namespace));
    const stored = shardMapOf(current);
    const labelling = this.childrenLabelling(stored, now);
    // A first map waits for the first audit: replicas must not filter children it has not looked for.
    if (labelling === undefined) return;
    const map = stored ?? emptyShardMap();
    const live = this.live(now);
    const acked = new Map([...this.observed.values()].map((o) => [o.identity, o.acked]));
    const next = withChildrenLabelling(nextShardMap(map, live, acked), labelling);
    if (next === map && current) return;
    try {
      await writeShardMap(client, namespace, current, next);
      this.writes++;
      this.o.log.info({ epoch: next.epoch, live }, 'shard map written');
      this.o.onMapWritten?.(next);
    } catch (e) {
      if (!(isApiError(e) && e.code === 409)) throw e;
    }
  }

  /**
   * Whether the replicas must cache children whole: from the latest audit; before the first audit of
   * this term ends, what the stored map says (undefined when there is no map yet). While claimed
   * children remain, their kinds are audited again every other retry period.
   */
  private childrenLabelling(stored: ShardMap | undefined, now: number): boolean | undefined {
    if (!this.o.audit) return false;
    const result = this.audited;
    if (!result) {
      this.startAudit(undefined); // again, if the first one failed
      return stored ? stored.labellingChildren === true : undefined;
    }
    if (result.claimed > 0 && now - this.auditedAt >= 2 * this.o.retryPeriodMs) this.startAudit(result);
    return result.claimed > 0;
  }

  private startAudit(previous: AuditResult | undefined): void {
    const audit = this.o.audit;
    if (!audit || this.auditing) return;
    this.auditing = audit
      .run(previous?.kinds)
      .then(
        (r) => {
          this.audited = r;
          this.auditedAt = performance.now();
          // The map follows at once, not a retry period later.
          this.kick?.abort();
        },
        (e: unknown) => this.o.log.warn({ err: String(e) }, 'child label audit failed'),
      )
      .finally(() => {
        this.auditing = undefined;
      });
  }

  private async deleteLease(lease: KubeObject): Promise<void> {
    try {
      await this.o.client.delete(
        {
          apiVersion: 'coordination.k8s.io/v1',
          plural: 'leases',
          namespace: this.o.namespace,
          name: lease.metadata.name ?? '',
        },
        {
          preconditions: {
            uid: lease.metadata.uid ?? '',
            resourceVersion: lease.metadata.resourceVersion ?? '',
          },
        },
      );
    } catch {
      // renewed or deleted meanwhile
    }
  }
}
