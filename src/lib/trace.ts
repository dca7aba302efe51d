import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/**
 * The spans the service makes itself (docs/operations.md "Tracing"): jobs and webhook attempts,
 * and the trace a write hands to its deliveries. Only OpenTelemetry's API: without tracing on
 * (src/ops/tracing.ts registers the SDK), every call here is a no-op.
 */
const tracer = trace.getTracer('venue-api');

/** The headers that carry the active span's trace to another service; empty when none. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The active trace as a W3C traceparent, for work done later elsewhere (an event's deliveries); undefined when none. */
export function currentTraceParent(): string | undefined {
  return traceHeaders().traceparent;
}

/** The active span's ids, for each log line made inside it (pino's mixin). */
export function traceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Record<string, string | number | boolean>;
  /** The trace it belongs to (a stored traceparent); a trace of its own when absent. */
  traceParent?: string | null | undefined;
}

/** Runs `fn` inside a span, ended when `fn` settles and marked failed when it throws. */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.traceParent
    ? propagation.extract(ROOT_CONTEXT, { traceparent: options.traceParent })
    : ROOT_CONTEXT;
  const spanOptions = {
    attributes: options.attributes ?? {},
    ...(options.kind === undefined ? {} : { kind: options.kind }),
  };
  return tracer.startActiveSpan(name, spanOptions, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}
