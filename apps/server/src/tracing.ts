/**
 * OpenTelemetry tracing, installed by a process's entry point before anything else is loaded
 * (the PostgreSQL and Redis instrumentations patch those clients as they load). Off unless an
 * OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
 * This module loads only the configuration and the OpenTelemetry SDK.
 */
import { register } from 'node:module';
import { ConfigError, loadConfig } from '@kb/config';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations, type InstrumentationBase } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface Tracing {
  /** Exports the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

/** The client libraries traced: PostgreSQL queries and Redis commands, only under a span the service started. */
function clientInstrumentations(): InstrumentationBase[] {
  return [new PgInstrumentation({ requireParentSpan: true }), new IORedisInstrumentation({ requireParentSpan: true })];
}

/**
 * Registers a tracer provider as the process's (W3C trace context, async-local context) with the
 * PostgreSQL and Redis instrumentations. `spanProcessor` replaces the OTLP exporter (tests use an
 * in-memory one).
 */
export function installTracing(
  settings: { serviceName: string; process: string; endpoint?: string; headers?: Record<string, string> },
  spanProcessor?: SpanProcessor,
  instrumentations: InstrumentationBase[] = clientInstrumentations(),
): Tracing {
  const processor = spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.endpoint, headers: settings.headers ?? {} }));
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName, 'kb.process': settings.process }),
    spanProcessors: [processor],
  });
  provider.register();
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations,
  });
  return {
    async shutdown() {
      unregister();
      await provider.shutdown();
    },
  };
}

/**
 * The entry points' first step: tracing as the environment sets it, or nothing. An invalid
 * configuration is left for the process's own start to report.
 */
export function installTracingFromEnv(process: 'server' | 'worker'): Tracing | undefined {
  let settings;
  try {
    settings = loadConfig().telemetry.tracing;
  } catch (error) {
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
  if (!settings) return undefined;
  // ES imports of pg and ioredis are patched through this loader hook; it must be registered
  // before they load. It wraps only the modules the instrumentations patch: a module it wraps is
  // seen by its importers through a copy of its exports taken at load time, so a wrapped module's
  // `export let` that changes later (as the metrics recorder did when installed) would stay
  // unchanged for every importer.
  const instrumentations = clientInstrumentations();
  const include = [...new Set(instrumentations.flatMap((instrumentation) => instrumentation.getModuleDefinitions().map((definition) => definition.name)))];
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include } });
  return installTracing({ ...settings, process }, undefined, instrumentations);
}
