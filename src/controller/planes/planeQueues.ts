/**
 * The work queues of a planes controller, the same on plain clusters (`controller.ts`) and on kcp
 * (`kcp/controller.ts`): blueprint names for the registrar, a second queue of names (ConsumerClusters on
 * plain clusters, blueprints to serve on kcp) and instance keys `blueprint|cluster|namespace|name`. One
 * place for their workers, the line a failed reconcile logs and how often a blueprint is looked at again.
 */
import type { Logger } from 'pino';
import { type Connectivity, type Handler, WorkQueue } from '../../kube/index.ts';
import { failedPassLogger } from '../core/errors.ts';
import type { PlaneTimings } from './kropApi.ts';
import type { BlueprintRegistrar } from './registrar.ts';

export interface PlaneQueueHandlers {
  registrar: BlueprintRegistrar;
  timings: PlaneTimings;
  log: Logger;
  /** The second queue's name in its failure log line (`cluster`, `serving`). */
  secondName: string;
  reconcileSecond: Handler<string>;
  reconcileInstance: Handler<string>;
  /** Instance workers (default 2); the other two queues have one each. */
  concurrency?: number;
}

export class PlaneQueues {
  readonly blueprints = new WorkQueue<string>();
  readonly second = new WorkQueue<string>();
  readonly instances = new WorkQueue<string>();
  private readonly running: Promise<void>[] = [];

  /** Starts the workers of the three queues; `shutdown` stops them. */
  run(h: PlaneQueueHandlers): void {
    const warn = (what: string) => failedPassLogger(h.log, what);
    this.running.push(
      this.blueprints.run(
        async (name) => {
          const out = await h.registrar.reconcile(name);
          h.log.debug({ blueprint: name, ...out }, 'blueprint reconciled');
          if (out.reason === 'Gone' || out.reason === 'Withdrawn') return undefined;
          if (out.reason === 'FinalizerAdded') return { requeueAfterMs: 0 };
          // A published blueprint is looked at again each resync; one that did not publish sooner.
          return {
            requeueAfterMs:
              out.reason === 'Published' ? h.timings.resyncMs : Math.min(h.timings.resyncMs, 10_000),
          };
        },
        1,
        warn('blueprint'),
      ),
      this.second.run(h.reconcileSecond, 1, warn(h.secondName)),
      this.instances.run(h.reconcileInstance, h.concurrency ?? 2, warn('instance')),
    );
  }

  /** Retries at once the keys that failed on the connection when `c` reconnects (kube/connectivity.ts). */
  retryOnReconnect(c: Connectivity): void {
    for (const q of [this.blueprints, this.second, this.instances]) q.retryOnReconnect(c);
  }

  /** Stops accepting keys and resolves once every worker has finished. */
  async shutdown(): Promise<void> {
    await Promise.all([this.blueprints.shutdown(), this.second.shutdown(), this.instances.shutdown()]);
    await Promise.all(this.running);
  }

  /**
   * Resolves true when no queue holds or processes a key (delayed requeues excluded), false when that
   * did not happen within `timeoutMs`.
   */
  async idle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const busy = [this.blueprints, this.second, this.instances].some((q) => {
        const s = q.stats();
        return s.depth > 0 || s.processing > 0;
      });
      if (!busy) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  }
}
