import { register } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { FastifyPluginCallback } from 'fastify';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * OpenTelemetry traces (docs/operations.md "Tracing"), loaded only when an OTLP endpoint is
 * set: the standard OTEL_* variables configure the exporter, the service name and the sampler.
 * Started before the database and Redis drivers load, so their instrumentations see them.
 */
export interface Tracing {
  /** @fastify/otel's plugin: a span per request, named by its route. */
  plugin: FastifyPluginCallback;
  /** Exports what is buffered and stops (a closing process). */
  shutdown(): Promise<void>;
}

export function startTracing(): Tracing {
  // pg and ioredis are ES imports of CommonJS packages: import-in-the-middle's loader hook is
  // how an instrumentation sees those load (require's hook sees only require).
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const resource = resourceFromAttributes({ 'service.name': 'venue-api' }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  const fastify = new FastifyOtelInstrumentation({
    // One span a request, not one a hook or handler: its statements and calls are its children.
    instrumentHooks: false,
    instrumentHandler: false,
    requestHook: (span, request) => span.updateName(`${request.method} ${request.routeOptions.url ?? 'unmatched'}`),
  });
  registerInstrumentations({
    instrumentations: [
      // Statement text with its placeholders, never the values bound to them; and only inside a
      // request or a job, not for every poll of the key cache or the webhook queue.
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
      // The command's name only: a limit check's arguments are keys and counts, not worth a span's bytes.
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command, requireParentSpan: true }),
      fastify,
    ],
  });
  return { plugin: fastify.plugin(), shutdown: () => provider.shutdown() };
}
