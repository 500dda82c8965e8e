// Setup snippets: the SDK's three lines, a curl command that sends one span, and the environment of an
// OpenTelemetry-instrumented service, filled in with an API key (or <YOUR_API_KEY>) and the ingest address (in the
// embedded mode the console's own origin, location.origin).
// Used by the Applications page after a key is created and by the Traces page's empty state.
//
// data-testid:
//   sdk-snippet   the SDK setup block (<pre>; its text is the code);  copy-sdk-snippet  its Copy button
//   curl-snippet  the curl command block (<pre>);                      copy-curl-snippet its Copy button
//   otel-snippet  the OpenTelemetry environment (<pre>);               copy-otel-snippet its Copy button
import { useMemo, useRef, type ReactNode } from 'react';
import { curlSnippetText, otelSnippetText, randomUuid, SDK_INSTALL, sdkSnippetText } from '../lib/snippets';
import { CopyButton } from './CopyButton';

export interface SnippetProps {
  /** The API key to fill in; `<YOUR_API_KEY>` when absent. */
  apiKey?: string;
  /** Base address of the ingest service, e.g. location.origin. */
  ingestUrl: string;
}

function CodeBlock({ title, text, testid, children }: { title: string; text: string; testid: string; children?: ReactNode }) {
  const pre = useRef<HTMLPreElement>(null);
  return (
    <figure className="snippet">
      <figcaption>
        <span>{title}</span>
        <CopyButton text={text} target={pre} testid={`copy-${testid}`} />
      </figcaption>
      <pre ref={pre} data-testid={testid}>{text}</pre>
      {children}
    </figure>
  );
}

export function SdkSnippet({ apiKey, ingestUrl }: SnippetProps) {
  return (
    <CodeBlock title="Instrument a Node.js app (Express)" text={sdkSnippetText(apiKey, ingestUrl)} testid="sdk-snippet">
      <p className="muted snippet-note">
        Install: <code>{SDK_INSTALL}</code>. Every request becomes a trace, sent every 30 s and on exit. The options may
        also come from <code>LANTERN_API_KEY</code> and <code>LANTERN_INGEST_URL</code>, which keeps the key out of your code.
      </p>
    </CodeBlock>
  );
}

export function CurlSnippet({ apiKey, ingestUrl }: SnippetProps) {
  // New ids per mount: the span is stored once per application (spans are idempotent), however often it is sent.
  const ids = useMemo(() => ({ traceId: randomUuid(), spanId: randomUuid() }), []);
  return (
    <CodeBlock title="Or send one span with curl" text={curlSnippetText(apiKey, ingestUrl, ids)} testid="curl-snippet">
      <p className="muted snippet-note">The answer <code>{'{"accepted":1,"rejected":[]}'}</code> means the span is stored: it shows on the Traces page.</p>
    </CodeBlock>
  );
}

export function OtelSnippet({ apiKey, ingestUrl, serviceName }: SnippetProps & { serviceName?: string }) {
  return (
    <CodeBlock title="Already on OpenTelemetry? Point its exporter here" text={otelSnippetText(apiKey, ingestUrl, serviceName)} testid="otel-snippet">
      <p className="muted snippet-note">
        Any OpenTelemetry SDK, agent or Collector sends traces and logs over OTLP/HTTP with these variables. Per language:
        docs/opentelemetry.md in the Lantern repository.
      </p>
    </CodeBlock>
  );
}
