/**
 * Leader election on a coordination.k8s.io/v1 Lease (client-go's protocol, our code): acquire the
 * Lease when it is free or expired, renew it every `retryPeriod`, and give up leadership when a renewal
 * has not succeeded within `renewDeadline`. Updates carry the resourceVersion, so two candidates never
 * both win.
 */
import { isApiError, type KubeObject, type RestClient } from '../../kube/index.ts';

/** A Lease-based leader election, as client-go's leaderelection runs it. */
export interface LeaderElectionOptions {
  client: RestClient;
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** This process's holder identity (unique per replica). */
  identity: string;
  /**
   * How long a Lease holds without renewal before another replica may take it.
   * @default 15
   */
  leaseDurationSeconds?: number;
  /**
   * A leader that has not renewed for this long stops leading.
   * @default 10_000 (10 s)
   */
  renewDeadlineMs?: number;
  /**
   * How often to try to acquire or renew.
   * @default 2_000 (2 s)
   */
  retryPeriodMs?: number;
  onStartedLeading: () => void | Promise<void>;
  onStoppedLeading: () => void;
}

const target = (o: LeaderElectionOptions) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  namespace: o.namespace,
  name: o.name,
});

function microTime(d = new Date()): string {
  return d.toISOString().replace('Z', '000Z');
}

export class LeaderElector {
  private stopped = false;
  private leading = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastRenew = 0;

  constructor(private readonly o: LeaderElectionOptions) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    void this.tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.o.retryPeriodMs ?? 2_000);
  }

  private async tick(): Promise<void> {
    try {
      const ok = await this.tryAcquireOrRenew();
      if (ok) {
        this.lastRenew = Date.now();
        if (!this.leading) {
          this.leading = true;
          await this.o.onStartedLeading();
        }
      } else if (this.leading && Date.now() - this.lastRenew > (this.o.renewDeadlineMs ?? 10_000)) {
        this.leading = false;
        this.o.onStoppedLeading();
      }
    } catch {
      if (this.leading && Date.now() - this.lastRenew > (this.o.renewDeadlineMs ?? 10_000)) {
        this.leading = false;
        this.o.onStoppedLeading();
      }
    }
    this.schedule();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const c = this.o.client;
    const duration = this.o.leaseDurationSeconds ?? 15;
    const now = new Date();
    const lease = await c.getOrUndefined(target(this.o));
    if (!lease) {
      try {
        await c.create({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.o.name, namespace: this.o.namespace },
          spec: {
            holderIdentity: this.o.identity,
            leaseDurationSeconds: duration,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        });
        return true;
      } catch (e) {
        if (isApiError(e) && e.code === 409) return false;
        throw e;
      }
    }
    const spec = (lease.spec ?? {}) as Record<string, unknown>;
    const holder = typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '';
    const renew = typeof spec.renewTime === 'string' ? Date.parse(spec.renewTime) : 0;
    const leaseSecs = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : duration;
    const expired = !holder || renew + leaseSecs * 1000 < now.getTime();
    if (holder !== this.o.identity && !expired) return false;
    const transitions = typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0;
    const next: KubeObject = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: this.o.identity,
        leaseDurationSeconds: duration,
        renewTime: microTime(now),
        ...(holder !== this.o.identity
          ? { acquireTime: microTime(now), leaseTransitions: transitions + 1 }
          : {}),
      },
    };
    try {
      await c.update(next);
      return true;
    } catch (e) {
      if (isApiError(e) && e.code === 409) return false;
      throw e;
    }
  }
}
