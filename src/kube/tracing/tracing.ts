/**
 * Whether this process traces, and the helpers every layer calls. Tracing is on when a flag asks for an
 * OTLP endpoint or the standard variables name one (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_TRACES_EXPORTER=otlp`), and `OTEL_SDK_DISABLED` is not `true`.
 * Only then is the OpenTelemetry SDK imported (otel.ts): start-up time and memory are unchanged when off.
 */
import { currentSpan, runInSpan, type Span, type SpanAttributes, type Tracer } from './span.ts';
import { noteWriteOrigin, objectKey, takeWriteOrigin } from './writeOrigins.ts';

let tracer: Tracer | undefined;

export interface TracingOptions {
  /** OTLP/gRPC endpoint (`http://host:4317`); absent: the standard variables decide. */
  endpoint?: string;
  /** `service.name`. @default OTEL_SERVICE_NAME, else 'kgraph-controller' */
  serviceName?: string;
}

/** The endpoint tracing would export to, or undefined when tracing is off. */
export function tracingEndpoint(
  opts: TracingOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  if (opts.endpoint) return opts.endpoint;
  const e = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (e) return e;
  if (env.OTEL_TRACES_EXPORTER === 'otlp') return 'http://localhost:4317';
  return undefined;
}

/** Starts tracing when it is on (the SDK is imported here, and only here); returns whether it is. */
export async function startTracing(opts: TracingOptions = {}): Promise<boolean> {
  const endpoint = tracingEndpoint(opts);
  if (!endpoint || tracer) return tracer !== undefined;
  const { otelTracer } = await import('./otel.ts');
  tracer = otelTracer({
    endpoint,
    serviceName: opts.serviceName ?? process.env.OTEL_SERVICE_NAME ?? 'kgraph-controller',
  });
  return true;
}

/** Flushes and stops tracing (the controller's shutdown). */
export async function stopTracing(): Promise<void> {
  const t = tracer;
  tracer = undefined;
  await t?.shutdown();
}

export function tracingOn(): boolean {
  return tracer !== undefined;
}

/**
 * Runs `fn` in a new span, child of the current one (or of `parent`); failures mark it failed. With
 * tracing off, `fn` runs as it is.
 */
export function withSpan<T>(
  name: string,
  attributes: SpanAttributes,
  fn: (span: Span | undefined) => Promise<T>,
  parent?: Span | string,
): Promise<T> {
  if (!tracer) return fn(undefined);
  const span = tracer.start(name, attributes, { parent: parent ?? currentSpan() });
  return runInSpan(span, async () => {
    try {
      return await fn(span);
    } catch (e) {
      span.fail(e instanceof Error ? e.message : String(e));
      throw e;
    } finally {
      span.end();
    }
  });
}

/** A client span for one API request under the current span, or undefined (off, or outside any span). */
export function requestSpan(verb: string, method: string, path: string): Span | undefined {
  if (!tracer) return undefined;
  const parent = currentSpan();
  if (!parent) return undefined;
  return tracer.start(
    `${method} ${path}`,
    { 'http.request.method': method, 'url.path': path, 'k8s.verb': verb },
    { parent, kind: 'client' },
  );
}

/** Records that the current span wrote this object (writeOrigins.ts); nothing when tracing is off. */
export function noteWrite(
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
): void {
  if (!tracer) return;
  const s = currentSpan();
  if (s) noteWriteOrigin(objectKey(apiVersion, kind, namespace, name), s.traceparent());
}

/** The trace a pass over this object joins: the pass that just wrote it, if tracing is on. */
export function writerOf(
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
): string | undefined {
  if (!tracer) return undefined;
  return takeWriteOrigin(objectKey(apiVersion, kind, namespace, name));
}

/** `trace_id` and `span_id` of the current span for a log line (pino's mixin), or nothing. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!tracer) return {};
  const s = currentSpan();
  return s ? { trace_id: s.traceId, span_id: s.spanId } : {};
}
