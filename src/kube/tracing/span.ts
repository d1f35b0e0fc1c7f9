/**
 * kgraph's own span interface and the span a piece of work runs under. The OpenTelemetry SDK sits behind
 * it (otel.ts), loaded only when tracing is on (tracing.ts), so nothing here imports it: with tracing
 * off a pass costs one `undefined` check per span it would have had.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type SpanAttributes = Record<string, string | number | boolean>;

export interface Span {
  /** 32 hex digits. */
  readonly traceId: string;
  /** 16 hex digits. */
  readonly spanId: string;
  setAttributes(a: SpanAttributes): void;
  /** Marks the span failed with this message. */
  fail(message: string): void;
  end(): void;
  /** The W3C `traceparent` of this span (`00-<trace>-<span>-01`): a child started elsewhere joins it. */
  traceparent(): string;
}

export interface StartOptions {
  /** The parent: a span of this process, or a `traceparent` from elsewhere (an annotation). */
  parent?: Span | string;
  kind?: 'internal' | 'client';
}

export interface Tracer {
  start(name: string, attributes?: SpanAttributes, opts?: StartOptions): Span;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

const current = new AsyncLocalStorage<Span>();

/** The span the calling code runs under, if any. */
export function currentSpan(): Span | undefined {
  return current.getStore();
}

/** Runs `fn` with `span` as the current span. */
export function runInSpan<T>(span: Span, fn: () => T): T {
  return current.run(span, fn);
}
