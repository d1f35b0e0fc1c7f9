/**
 * The process's `/metrics` exposition: every controller's registry merged with one registry of
 * process and Node.js runtime metrics.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

let processRegistry: Registry | undefined;

/** Process and Node.js runtime metrics (CPU, memory, event-loop lag, GC, handles), one registry per process. */
export function processMetricsRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    // prom-client samples event-loop delay with monitorEventLoopDelay at 10 ms resolution by default: a
    // timer waking an idle controller 100 times a second (0.28 s of CPU per idle minute, measured). At
    // 200 ms the lag histogram is coarser and the process wakes 5 times a second for it.
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 200 });
  }
  return processRegistry;
}

/** `/metrics` of a process: the controllers' registries and the process metrics, in one exposition. */
export function exposition(registries: readonly Registry[]): () => Promise<string> {
  const merged = Registry.merge([...registries, processMetricsRegistry()]);
  return () => merged.metrics();
}
