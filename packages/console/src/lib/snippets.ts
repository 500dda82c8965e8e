/**
 * The text of the setup snippets shown after a key is created and on empty trace pages: the SDK's three-line setup
 * (docs/sdk.md "Setup in three lines"), the environment of an OpenTelemetry-instrumented service
 * (docs/opentelemetry.md) and a curl command that sends one span. Pure functions: unit-tested in
 * packages/console/test.
 */

export const KEY_PLACEHOLDER = '<YOUR_API_KEY>';

/** A random UUID (version 4). crypto.randomUUID exists only in secure contexts, getRandomValues everywhere. */
export function randomUuid(random: (bytes: Uint8Array) => Uint8Array = (b) => crypto.getRandomValues(b)): string {
  const b = random(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Quotes a value for a POSIX shell (single quotes). */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The install line: the SDK is not on the npm registry yet, it installs from a built checkout. */
export const SDK_INSTALL = 'npm install /path/to/lantern/packages/sdk-node   # from a built Lantern checkout';

/** A JavaScript string literal in single quotes, as docs/sdk.md writes them. */
function jsString(value: string): string {
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}'`;
}

/** The SDK's setup for an Express app, with the key and the ingest address filled in. */
export function sdkSnippetText(apiKey: string | undefined, ingestUrl: string): string {
  return [
    `import { createLantern } from '@lantern/sdk-node';`,
    `const lantern = createLantern({ apiKey: ${jsString(apiKey || KEY_PLACEHOLDER)}, ingestUrl: ${jsString(ingestUrl)} });`,
    `app.use(lantern.middleware());   // Express 4/5, before the routes; node:http: http.createServer(lantern.wrap(handler))`,
  ].join('\n');
}

export interface SpanIds { traceId: string; spanId: string }

/**
 * A curl command posting one root span to POST /ingest/traces with the key in `x-api-key`. The timestamps come
 * from `date` when it runs (any POSIX shell); the ids are fixed, so running it twice stores the span once.
 */
/** A loop, not /\/+$/: that pattern moves over a run of slashes in quadratic time. */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

export function curlSnippetText(apiKey: string | undefined, ingestUrl: string, ids: SpanIds): string {
  const now = `'"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'`;
  const span = `{"traceId":"${ids.traceId}","spanId":"${ids.spanId}","parentSpanId":null,"timestamp":"${now}",`
    + `"requestMethod":"controller:GET","requestURL":"/hello","responseStatus":200,"durationMs":42}`;
  return [
    `curl -X POST ${shellQuote(`${withoutTrailingSlashes(ingestUrl)}/ingest/traces`)} \\`,
    `  -H ${shellQuote(`x-api-key: ${apiKey || KEY_PLACEHOLDER}`)} \\`,
    `  -H 'content-type: application/json' \\`,
    `  -d '{"timestamp":"${now}","traces":[${span}]}'`,
  ].join('\n');
}

/**
 * The environment that points an OpenTelemetry SDK, agent or exporter at Lantern over OTLP/HTTP
 * (docs/opentelemetry.md): the endpoint, the key as a header, protobuf over HTTP (Lantern has no gRPC listener),
 * and no metrics export (OTLP metrics are not taken yet). The service name is the application's, so the trace list
 * shows the name the console knows it by.
 */
export function otelSnippetText(apiKey: string | undefined, ingestUrl: string, serviceName = 'my-service'): string {
  return [
    `export OTEL_EXPORTER_OTLP_ENDPOINT=${shellQuote(withoutTrailingSlashes(ingestUrl))}`,
    `export OTEL_EXPORTER_OTLP_HEADERS=${shellQuote(`x-api-key=${apiKey || KEY_PLACEHOLDER}`)}`,
    `export OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`,
    `export OTEL_METRICS_EXPORTER=none`,
    `export OTEL_SERVICE_NAME=${shellQuote(serviceName || 'my-service')}`,
  ].join('\n');
}
