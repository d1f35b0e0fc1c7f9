/**
 * The liveness probe of connected consumer clusters (design/planes.md §3.3.4): every `livenessMs` a GET
 * `/readyz` to each connected cluster, answered within half that interval or counted as failed. Without
 * it a dead API server is noticed only at the next connect (the resync, five minutes by default) or when
 * an instance reconcile fails, and the registration says `Connected=True` all along. A cluster whose
 * probe fails is reported down once (and again after it came back); the bound on noticing is
 * `livenessMs` (the next probe) plus `livenessMs / 2` (its timeout): under 2 × `livenessMs`.
 */
import type { RestClient } from '../../kube/index.ts';
import { errorMessage } from '../core/errors.ts';

export interface ProbeTarget {
  /** ConsumerCluster name. */
  name: string;
  client: RestClient;
}

export interface ConsumerProbeDeps {
  intervalMs: number;
  /** The clusters connected now. */
  targets: () => ProbeTarget[];
  /** A probe failed where the last one (or the connect) succeeded. */
  down: (name: string, message: string) => Promise<void>;
  /** A probe succeeded where the last one failed. */
  up: (name: string) => Promise<void>;
  /** Told about a `down` or `up` that threw (the next probe tries again). */
  onError: (name: string, e: unknown) => void;
}

export class ConsumerProbe {
  private readonly deps: ConsumerProbeDeps;
  /** ConsumerCluster names whose last probe failed. */
  private readonly failing = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(deps: ConsumerProbeDeps) {
    this.deps = deps;
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Whether the last probe of a cluster failed. */
  isFailing(name: string): boolean {
    return this.failing.has(name);
  }

  /** A cluster reconnected (or was deregistered): its next failure is news again. */
  reset(name: string): void {
    this.failing.delete(name);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.probeAll().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.deps.intervalMs);
    this.timer.unref?.();
  }

  /** One round: every connected cluster in parallel, so one slow cluster delays no other. */
  async probeAll(): Promise<void> {
    const targets = this.deps.targets();
    const names = new Set(targets.map((t) => t.name));
    for (const n of [...this.failing]) if (!names.has(n)) this.failing.delete(n);
    await Promise.all(targets.map((t) => this.probe(t)));
  }

  private async probe(t: ProbeTarget): Promise<void> {
    const timeoutMs = Math.max(100, Math.floor(this.deps.intervalMs / 2));
    let failure: string | undefined;
    try {
      await t.client.request({
        method: 'GET',
        path: '/readyz',
        timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      failure = `liveness probe GET /readyz: ${errorMessage(e)}`;
    }
    try {
      if (failure !== undefined && !this.failing.has(t.name)) {
        this.failing.add(t.name);
        await this.deps.down(t.name, failure);
      } else if (failure === undefined && this.failing.has(t.name)) {
        this.failing.delete(t.name);
        await this.deps.up(t.name);
      }
    } catch (e) {
      // Reported again by the next probe.
      if (failure !== undefined) this.failing.delete(t.name);
      else this.failing.add(t.name);
      this.deps.onError(t.name, e);
    }
  }
}
