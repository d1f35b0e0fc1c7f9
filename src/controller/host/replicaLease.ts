/**
 * A replica's own membership Lease (design/sharding.md §3, §5): `kgraph-replica-<identity>` in the
 * controller namespace, labelled `kgraph.dev/replica`, renewed every retry period. It carries the shard
 * map epoch the replica has applied (`kgraph.dev/acked-epoch`): the coordinator completes drains on it.
 *
 * It is also the replica's write fence: writes are refused once the last successful renewal *started*
 * longer ago than the renew deadline (measured on this process's monotonic clock), which is shorter
 * than the lease duration after which the coordinator, on its own clock, declares the replica lost and
 * gives its buckets away. A replica that trips the fence has lost its identity for good (`onLost`):
 * it may have been paused while others took its buckets, so it must not resume writing.
 */
import { isRecord } from '../../diag/record.ts';
import {
  isApiError,
  type KubeObject,
  RequestCounters,
  RestClient,
  sleep,
  type WriteFence,
} from '../../kube/index.ts';
import { microTime } from './leaderElection.ts';

export const LABEL_REPLICA = 'kgraph.dev/replica';
export const ANNOTATION_ACKED_EPOCH = 'kgraph.dev/acked-epoch';
export const ANNOTATION_REPLICA_IDENTITY = 'kgraph.dev/identity';

export interface ReplicaLeaseOptions {
  namespace: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** The fence tripped or the Lease was taken from us: the process must stop writing for good. */
  onLost: (why: string) => void;
  onError?: (e: unknown) => void;
}

/** A Lease name for an identity (DNS subdomain: lower case, `-` for anything else, at most 253). */
export function replicaLeaseName(identity: string): string {
  const safe = identity
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return `kgraph-replica-${safe}`.slice(0, 253);
}

export class ReplicaLease implements WriteFence {
  private readonly client: RestClient;
  private readonly o: ReplicaLeaseOptions;
  private readonly name: string;
  /** performance.now() when the last successful renewal was sent; -Infinity before the first. */
  private renewedAt = Number.NEGATIVE_INFINITY;
  private lost: string | undefined;
  private ackedEpoch = -1;
  private wantAck = -1;
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private established: (() => void) | undefined;
  /** Resolves once the Lease is held (first renewal). */
  readonly ready: Promise<void>;

  constructor(client: RestClient, opts: ReplicaLeaseOptions) {
    // Its own client: Lease traffic is not the reconcilers' and never fenced.
    this.client = new RestClient(client.kubeConfig, { counters: new RequestCounters() });
    this.o = opts;
    this.name = replicaLeaseName(opts.identity);
    this.ready = new Promise((resolve) => {
      this.established = resolve;
    });
  }

  get identity(): string {
    return this.o.identity;
  }

  refusal(): string | undefined {
    if (this.lost) return this.lost;
    const age = performance.now() - this.renewedAt;
    if (age > this.o.renewDeadlineMs) {
      this.trip(
        Number.isFinite(age)
          ? `membership Lease ${this.name} last renewed ${Math.round(age)} ms ago (renew deadline ${this.o.renewDeadlineMs} ms)`
          : `membership Lease ${this.name} not held yet`,
        Number.isFinite(age),
      );
      return this.lost ?? `membership Lease ${this.name} not held yet`;
    }
    return undefined;
  }

  /** The epoch of the shard map this replica has applied: written on the next renewal. */
  acknowledge(epoch: number): void {
    this.wantAck = Math.max(this.wantAck, epoch);
    this.kick?.();
  }

  private kick: (() => void) | undefined;

  start(): void {
    if (this.loop) return;
    this.abort = new AbortController();
    this.loop = this.run(this.abort.signal);
  }

  /** Stops renewing and deletes the Lease, so the coordinator reassigns at once. */
  async stop(): Promise<void> {
    this.abort?.abort();
    await this.loop;
    this.loop = undefined;
    try {
      const lease = await this.client.getOrUndefined(this.target());
      if (lease && holderOf(lease) === this.o.identity)
        await this.client.delete(this.target(), { preconditions: { uid: lease.metadata.uid ?? '' } });
    } catch (e) {
      this.o.onError?.(e);
    }
    this.client.close();
  }

  private target() {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      plural: 'leases',
      namespace: this.o.namespace,
      name: this.name,
    };
  }

  private trip(why: string, wasHeld: boolean): void {
    if (!wasHeld || this.lost) return;
    this.lost = why;
    this.o.onLost(why);
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      // Checked before renewing: a process resumed after a pause must not renew its way back.
      if (this.refusal() !== undefined && this.lost) return;
      const sentAt = performance.now();
      if (await this.renew()) {
        this.renewedAt = sentAt;
        this.established?.();
        this.established = undefined;
      }
      await new Promise<void>((resolve) => {
        this.kick = resolve;
        sleep(this.o.retryPeriodMs, signal).then(
          () => resolve(),
          () => resolve(),
        );
      });
      this.kick = undefined;
    }
  }

  private async renew(): Promise<boolean> {
    const now = Date.now();
    const seconds = Math.max(1, Math.ceil(this.o.leaseDurationMs / 1000));
    const ack = this.wantAck;
    const metadata = (lease?: KubeObject) => ({
      ...(lease?.metadata ?? {}),
      name: this.name,
      namespace: this.o.namespace,
      labels: { ...(lease?.metadata.labels ?? {}), [LABEL_REPLICA]: 'true' },
      annotations: {
        ...(lease?.metadata.annotations ?? {}),
        [ANNOTATION_REPLICA_IDENTITY]: this.o.identity,
        [ANNOTATION_ACKED_EPOCH]: String(ack),
      },
    });
    try {
      const lease = await this.client.getOrUndefined(this.target());
      if (!lease) {
        if (this.renewedAt > Number.NEGATIVE_INFINITY) {
          this.trip(`membership Lease ${this.name} was deleted`, true);
          return false;
        }
        await this.client.create({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: metadata(),
          spec: {
            holderIdentity: this.o.identity,
            leaseDurationSeconds: seconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
          },
        });
      } else {
        if (holderOf(lease) !== this.o.identity) {
          this.trip(`membership Lease ${this.name} is held by ${holderOf(lease)}`, true);
          return false;
        }
        const spec = isRecord(lease.spec) ? lease.spec : {};
        await this.client.update({
          ...lease,
          metadata: metadata(lease),
          spec: {
            ...spec,
            holderIdentity: this.o.identity,
            leaseDurationSeconds: seconds,
            renewTime: microTime(now),
          },
        });
      }
      this.ackedEpoch = ack;
      return true;
    } catch (e) {
      if (!(isApiError(e) && e.code === 409)) this.o.onError?.(e);
      return false;
    }
  }

  /** The epoch last written on the Lease. */
  get acked(): number {
    return this.ackedEpoch;
  }
}

function holderOf(lease: KubeObject): string {
  const spec = isRecord(lease.spec) ? lease.spec : {};
  return typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '';
}
