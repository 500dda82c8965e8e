// The same route with OpenTelemetry JS: NodeSDK with the HTTP and Express instrumentations and a
// BatchSpanProcessor (its defaults: queue 2048, batch 512, every 5 s) exporting OTLP/HTTP (JSON) to the sink of
// run.mjs; unless --auto-only, one manual child span around the route's work. Traces only: no metric reader and
// no log processor (NodeSDK would otherwise add OTLP metric and log exporters from the environment's defaults).
import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { childSpan, hello, serve } from './serve.mjs';

const sdk = new NodeSDK({
  serviceName: 'bench-otel',
  spanProcessors: [new tracing.BatchSpanProcessor(new OTLPTraceExporter({ url: `${process.env.SINK_URL}/v1/traces` }))],
  instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()],
  metricReaders: [],
  logRecordProcessors: [],
});
sdk.start();

// Loaded with require() after start(), so that the instrumentations' require hook patches express and node:http
// (an ESM `import` would need the --import hook of @opentelemetry/instrumentation instead).
const express = createRequire(import.meta.url)('express');
const tracer = trace.getTracer('bench');
const app = express();
app.get('/hello', (req, res) => {
  const body = childSpan
    ? tracer.startActiveSpan('greeting', (span) => {
        try {
          return hello();
        } finally {
          span.end();
        }
      })
    : hello();
  res.json(body);
});
serve(app, { flush: () => sdk.shutdown() });
