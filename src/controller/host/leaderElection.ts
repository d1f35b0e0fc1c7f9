/**
 * Leader election on a coordination.k8s.io/v1 Lease, so that of several
 * controller replicas exactly one reconciles (client-go's algorithm, our code):
 *  - a candidate takes the Lease when it is missing, released (no holder) or
 *    expired — expiry judged by how long *we* have seen it unchanged, never by
 *    comparing clocks across machines;
 *  - the leader renews every `retryPeriodMs` with an optimistic-concurrency
 *    update; if it cannot renew within `renewDeadlineMs` it steps down;
 *  - on stop the leader releases the Lease so a successor need not wait.
 * Lease traffic uses its own request counters (by default), so "a steady state
 * makes no writes" is measured on the reconciler's requests only.
 */
import { isRecord } from '../../diag/record.ts';
import {
  isApiError,
  type KubeObject,
  RequestCounters,
  type ResourceTarget,
  RestClient,
  sleep,
} from '../../kube/index.ts';

/** One candidate of a Lease-based leader election. */
export interface LeaderElectionOptions {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** This candidate's identity (e.g. pod name + random suffix). */
  identity: string;
  /**
   * How long a Lease seen unchanged counts as held; after that another candidate may take it.
   * @default 15_000 (15 s)
   */
  leaseDurationMs?: number;
  /**
   * A leader that has not renewed for this long steps down.
   * @default 10_000 (10 s)
   */
  renewDeadlineMs?: number;
  /**
   * How often to try to acquire or renew.
   * @default 2_000 (2 s)
   */
  retryPeriodMs?: number;
  /** Called when this candidate becomes leader; the signal aborts when it stops leading. */
  onStartedLeading: (signal: AbortSignal) => void;
  /** @default none */
  onStoppedLeading?: () => void;
  /**
   * Called when the observed leader changes (including to ourselves).
   * @default none
   */
  onNewLeader?: (identity: string) => void;
  /**
   * Release the Lease on stop, so a successor need not wait for it to expire.
   * @default true
   */
  releaseOnStop?: boolean;
  /**
   * Counters for Lease requests, kept apart from the reconcilers' counts.
   * @default a private set
   */
  counters?: RequestCounters;
  /** @default none (the election keeps retrying) */
  onError?: (e: unknown) => void;
}

/** Lease times are MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  private readonly client: RestClient;
  private readonly o: Required<
    Pick<LeaderElectionOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'releaseOnStop'>
  > &
    LeaderElectionOptions;
  private readonly target: ResourceTarget;
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private leading = false;
  private observedRv = '';
  private observedAt = 0;
  private observedLeader = '';
  private lease: KubeObject | undefined;

  constructor(client: RestClient, opts: LeaderElectionOptions) {
    this.client = new RestClient(client.kubeConfig, { counters: opts.counters ?? new RequestCounters() });
    this.o = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      releaseOnStop: true,
      ...opts,
    };
    if (this.o.renewDeadlineMs >= this.o.leaseDurationMs) {
      throw new Error('leader election: renewDeadline must be shorter than leaseDuration');
    }
    this.target = {
      apiVersion: 'coordination.k8s.io/v1',
      plural: 'leases',
      namespace: opts.namespace,
      name: opts.name,
    };
  }

  /** The requests this elector made, by verb. */
  get counters(): RequestCounters {
    return this.client.counters;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The last observed holder ('' when none). */
  get leader(): string {
    return this.observedLeader;
  }

  start(): void {
    if (this.loop) return;
    this.abort = new AbortController();
    this.loop = this.run(this.abort.signal);
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    await this.loop;
    this.loop = undefined;
    this.client.close();
  }

  private async run(signal: AbortSignal): Promise<void> {
    const jittered = (): number => this.o.retryPeriodMs * (1 + 0.2 * Math.random());
    while (!signal.aborted) {
      while (!signal.aborted && !(await this.tryAcquireOrRenew())) await sleep(jittered(), signal);
      if (signal.aborted) return;
      this.leading = true;
      const leadership = new AbortController();
      this.safe(() => this.o.onStartedLeading(leadership.signal));
      let lastRenew = Date.now();
      while (!signal.aborted) {
        await sleep(this.o.retryPeriodMs, signal);
        if (signal.aborted) break;
        if (await this.tryAcquireOrRenew()) lastRenew = Date.now();
        else if (Date.now() - lastRenew > this.o.renewDeadlineMs || this.observedLeader !== this.o.identity)
          break;
      }
      this.leading = false;
      leadership.abort();
      if (signal.aborted && this.o.releaseOnStop) await this.release();
      this.safe(() => this.o.onStoppedLeading?.());
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = Date.now();
    const durationSeconds = Math.max(1, Math.ceil(this.o.leaseDurationMs / 1000));
    try {
      const lease = await this.client.getOrUndefined(this.target);
      if (!lease) {
        this.lease = await this.client.create({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.o.name, namespace: this.o.namespace },
          spec: {
            holderIdentity: this.o.identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        });
        this.observe(this.lease, now);
        return true;
      }
      this.observe(lease, now);
      const spec = isRecord(lease.spec) ? lease.spec : {};
      const holder = typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '';
      const seconds =
        typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : durationSeconds;
      if (holder !== '' && holder !== this.o.identity && this.observedAt + seconds * 1000 > now) return false;
      const mine = holder === this.o.identity;
      const transitions = typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0;
      const updated = await this.client.update({
        ...lease,
        spec: {
          ...spec,
          holderIdentity: this.o.identity,
          leaseDurationSeconds: durationSeconds,
          acquireTime: mine && typeof spec.acquireTime === 'string' ? spec.acquireTime : microTime(now),
          renewTime: microTime(now),
          leaseTransitions: mine ? transitions : transitions + 1,
        },
      });
      this.lease = updated;
      this.observe(updated, now);
      return true;
    } catch (e) {
      // 409: someone else wrote the Lease first; anything else: try again next period.
      if (!(isApiError(e) && e.code === 409)) this.safe(() => this.o.onError?.(e));
      return false;
    }
  }

  private observe(lease: KubeObject, now: number): void {
    const rv = lease.metadata.resourceVersion ?? '';
    if (rv !== this.observedRv) {
      this.observedRv = rv;
      this.observedAt = now;
    }
    const spec = isRecord(lease.spec) ? lease.spec : {};
    const holder = typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '';
    if (holder !== this.observedLeader) {
      this.observedLeader = holder;
      if (holder !== '') this.safe(() => this.o.onNewLeader?.(holder));
    }
  }

  /** Gives the Lease up (holder cleared, 1 s duration) if we still hold it. */
  private async release(): Promise<void> {
    if (!this.lease) return;
    try {
      const current = await this.client.getOrUndefined(this.target);
      const spec = current && isRecord(current.spec) ? current.spec : undefined;
      if (!current || !spec || spec.holderIdentity !== this.o.identity) return;
      await this.client.update({
        ...current,
        spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(Date.now()) },
      });
      this.observedLeader = '';
    } catch (e) {
      this.safe(() => this.o.onError?.(e));
    }
  }

  private safe(f: () => void): void {
    try {
      f();
    } catch (e) {
      try {
        this.o.onError?.(e);
      } catch {
        // an error handler that throws is ignored
      }
    }
  }
}
