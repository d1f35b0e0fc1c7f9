/**
 * The liveness sweeper (design/planes.md §13.4): reclaims the provider and host children of instances kgraph
 * can no longer reach, only when they are provably gone (kgraph's safety rule): the cluster was
 * deregistered, the blueprint withdrawn, or the reachable, verified cluster says the instance is
 * NotFound / replaced / forbidden. An unreachable or changed cluster is never swept. Nothing is swept
 * before `startupGrace` has passed since start; unparseable records are skipped, never deleted.
 *
 * Only one process may sweep (design/planes.md §13.4 "on the elected leader only"): the sweeper is told its authority —
 * the Lease (`isLeader`, asked before every sweep) or a declared single replica (leader election off)
 * — and with `{ none: true }` (the planes controller's default), or while the Lease is not held, it
 * refuses to sweep and deletes nothing. A Sweeper built without `authority` at all is unchecked (the
 * kcp backend's, which runs only after the CLI won the Lease).
 *
 * Sharded (design/sharding.md §6) the shard coordinator sweeps: its `registeredClusterIDs` lists every
 * registration from the API server, and `connectionFor` answers `elsewhere` for a cluster another replica
 * serves, whose stale records are then left alone (only deregistration or withdrawal decide them here).
 */
import type { Logger } from 'pino';
import { isForbidden, isNotFound, type RestClient } from '../../kube/index.ts';
import { errorMessage } from '../core/errors.ts';
import { listRecords, reclaimRecord } from './cleanup.ts';
import type { PlaneTimings } from './kropApi.ts';
import type { LivenessRecord } from './liveness.ts';
import type { Connection, PublishedBlueprint } from './published.ts';

export interface SweeperDeps {
  provider: RestClient;
  host: RestClient | undefined;
  namespace: string;
  timings: PlaneTimings;
  log: Logger;
  now: () => Date;
  startedAt: Date;
  /** Asked once per sweep, after the records are listed (a sharded replica lists the registrations). */
  registeredClusterIDs: () => Set<string> | Promise<Set<string>>;
  publishedExports: () => Set<string>;
  /** The connection serving `exportName` in the cluster (plain clusters: one per cluster, whatever the export). */
  connectionFor: (
    clusterID: string,
    exportName: string,
  ) => {
    conn?: Connection;
    reachable: boolean;
    verified: boolean;
    withdrawn: boolean;
    /** Registered, but served by another sharded replica: this one has no connection to ask. */
    elsewhere?: boolean;
  };
  blueprintForExport: (exportName: string) => PublishedBlueprint | undefined;
  /** Who lets this sweeper run; absent: unchecked (see the file comment). */
  authority?: SweepAuthority;
}

/** Who lets this sweeper run: the leader Lease, or the operator's word that there is one replica. */
export type SweepAuthority = { isLeader: () => boolean } | { singleReplica: true } | { none: true };

export type SweepDecision = 'skipped' | 'fresh' | 'alive' | 'kept' | 'elsewhere' | 'swept' | 'failed';

export interface SweepReport {
  decisions: Map<string, SweepDecision>;
  /** Stale records kept because their cluster is unreachable or changed. */
  unreachable: number;
  /** Set when the sweep did not run because this process may not sweep (not the leader). */
  refused?: string;
}

export class Sweeper {
  private readonly deps: SweeperDeps;
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<unknown> | undefined;
  lastReport: SweepReport | undefined;
  /** Instances swept since start (metrics). */
  swept = 0;
  private refusedLogged = false;

  constructor(deps: SweeperDeps) {
    this.deps = deps;
  }

  /** The same sweeper on another clock (tests inject one). */
  withClock(now: () => Date, startedAt: Date): Sweeper {
    return new Sweeper({ ...this.deps, now, startedAt });
  }

  /** The same sweeper with another authority. */
  withAuthority(authority: SweepAuthority): Sweeper {
    return new Sweeper({ ...this.deps, authority });
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .catch((e) => this.deps.log.warn({ err: errorMessage(e) }, 'sweep failed'))
        .finally(() => {
          this.running = undefined;
        });
    }, this.deps.timings.sweepIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Why this process may not sweep now, or undefined when it may. */
  refusal(): string | undefined {
    const a = this.deps.authority;
    if (!a) return undefined;
    if ('none' in a) return 'no sweep authority: run with leader election, or declare a single replica';
    if ('isLeader' in a && !a.isLeader()) return 'not the leader';
    return undefined;
  }

  /** One sweep (the timer's; tests call it directly). */
  async sweep(): Promise<SweepReport> {
    const report: SweepReport = { decisions: new Map(), unreachable: 0 };
    const refused = this.refusal();
    if (refused !== undefined) {
      if (!this.refusedLogged) this.deps.log.warn({ reason: refused }, 'liveness sweeper not running');
      this.refusedLogged = true;
      report.refused = refused;
      this.lastReport = report;
      return report;
    }
    this.refusedLogged = false;
    const now = this.deps.now().getTime();
    if (now < this.deps.startedAt.getTime() + this.deps.timings.startupGraceMs) {
      this.lastReport = report;
      return report;
    }
    const records = await listRecords(this.deps.provider, this.deps.namespace);
    // Listed after the records: a record's cluster registered before the record was written is in it.
    const registered = await this.deps.registeredClusterIDs();
    for (const { record } of records) {
      const d = await this.decide(record, now, registered);
      if (d === 'kept') report.unreachable += 1;
      if (d === 'swept') {
        const errors = await reclaimRecord(this.deps.provider, this.deps.host, this.deps.namespace, record);
        if (errors.length > 0) {
          this.deps.log.warn({ record: record.name, errors }, 'sweep of a gone instance failed');
          report.decisions.set(record.name, 'failed');
          continue;
        }
        this.swept += 1;
        this.deps.log.info(
          { record: record.name, cluster: record.clusterID, instance: record.instanceName },
          'swept the children of a gone instance',
        );
      }
      report.decisions.set(record.name, d);
    }
    this.lastReport = report;
    return report;
  }

  private async decide(record: LivenessRecord, now: number, registered: Set<string>): Promise<SweepDecision> {
    const last = record.lastReconciled ? Date.parse(record.lastReconciled) : Number.NaN;
    if (Number.isNaN(last)) {
      this.deps.log.info({ record: record.name }, 'liveness record without a valid lastReconciled: skipped');
      return 'skipped';
    }
    if (!record.instanceUID || !record.clusterID) {
      this.deps.log.error({ record: record.name }, 'liveness record without instance-uid label: skipped');
      return 'skipped';
    }
    if (now - last <= this.deps.timings.staleAfterMs) return 'fresh';
    if (!registered.has(record.clusterID)) return 'swept';
    if (!record.exportName || !this.deps.publishedExports().has(record.exportName)) return 'swept';
    const c = this.deps.connectionFor(record.clusterID, record.exportName);
    // Another replica's cluster: only its deregistration or a withdrawn blueprint decide here.
    if (c.elsewhere) return 'elsewhere';
    // Unreachable or changed clusters are never swept; a withdrawn grant still answers the GET (403).
    if (!c.conn || !c.reachable || (!c.verified && !c.withdrawn)) return 'kept';
    const bp = this.deps.blueprintForExport(record.exportName);
    if (!bp) return 'swept';
    try {
      const inst = await c.conn.client.get({
        apiVersion: `${bp.group}/${bp.version}`,
        plural: bp.plural,
        ...(bp.namespaced ? { namespace: record.instanceNamespace } : {}),
        name: record.instanceName,
      });
      return inst.metadata.uid === record.instanceUID ? 'alive' : 'swept';
    } catch (e) {
      if (isNotFound(e) || isForbidden(e)) return 'swept';
      return 'kept';
    }
  }
}
