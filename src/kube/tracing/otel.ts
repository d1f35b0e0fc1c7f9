/**
 * Our span interface (span.ts) over the OpenTelemetry SDK: a tracer provider with a batch processor
 * exporting OTLP over gRPC. Imported only by tracing.ts when tracing is on. Parents are passed
 * explicitly (our own AsyncLocalStorage says which span is current), so no global context manager is
 * installed.
 */
import {
  type Context,
  context as contextApi,
  type Span as OtelSpan,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Span, SpanAttributes, StartOptions, Tracer } from './span.ts';

const propagator = new W3CTraceContextPropagator();

class OurSpan implements Span {
  readonly traceId: string;
  readonly spanId: string;
  constructor(readonly inner: OtelSpan) {
    const c = inner.spanContext();
    this.traceId = c.traceId;
    this.spanId = c.spanId;
  }
  setAttributes(a: SpanAttributes): void {
    this.inner.setAttributes(a);
  }
  fail(message: string): void {
    this.inner.setStatus({ code: SpanStatusCode.ERROR, message });
  }
  end(): void {
    this.inner.end();
  }
  traceparent(): string {
    return `00-${this.traceId}-${this.spanId}-01`;
  }
}

function parentContext(parent: Span | string | undefined): Context {
  if (parent === undefined) return ROOT_CONTEXT;
  if (parent instanceof OurSpan) return trace.setSpan(ROOT_CONTEXT, parent.inner);
  const carrier = { traceparent: typeof parent === 'string' ? parent : parent.traceparent() };
  return propagator.extract(ROOT_CONTEXT, carrier, {
    get: (c, k) => (c as Record<string, string>)[k],
    keys: (c) => Object.keys(c),
  });
}

export function otelTracer(opts: { endpoint: string; serviceName: string }): Tracer {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': opts.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: opts.endpoint }), { scheduledDelayMillis: 500 }),
    ],
  });
  const tracer = provider.getTracer('kgraph');
  return {
    start(name: string, attributes: SpanAttributes = {}, o: StartOptions = {}): Span {
      const ctx = parentContext(o.parent);
      const span = contextApi.with(ctx, () =>
        tracer.startSpan(
          name,
          { attributes, kind: o.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL },
          ctx,
        ),
      );
      return new OurSpan(span);
    },
    async shutdown(): Promise<void> {
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}
