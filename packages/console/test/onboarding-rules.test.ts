import { describe, expect, it } from '@jest/globals';
import { MAX_UPLOAD_BYTES, mediaType, MIN_PASSWORD_LENGTH, signUpProblem, uploadProblem } from '../src/lib/form-rules';
import { curlSnippetText, KEY_PLACEHOLDER, otelSnippetText, randomUuid, sdkSnippetText } from '../src/lib/snippets';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('signUpProblem', () => {
  it('accepts an email and a password of 8 characters', () => {
    expect(MIN_PASSWORD_LENGTH).toBe(8);
    expect(signUpProblem('ada@example.com', '12345678')).toBeUndefined();
  });
  it('refuses a short password, a missing or malformed email', () => {
    expect(signUpProblem('ada@example.com', '1234567')).toMatch(/at least 8 characters/);
    expect(signUpProblem('  ', '12345678')).toMatch(/email/);
    expect(signUpProblem('ada.example.com', '12345678')).toMatch(/valid email/);
  });
});

describe('uploadProblem', () => {
  it('accepts exactly 10 MB and refuses one byte more, naming both sizes', () => {
    expect(MAX_UPLOAD_BYTES).toBe(10_485_760);
    expect(uploadProblem({ name: 'a.pdf', size: MAX_UPLOAD_BYTES })).toBeUndefined();
    const message = uploadProblem({ name: 'a.pdf', size: MAX_UPLOAD_BYTES + 1 });
    expect(message).toContain('a.pdf');
    expect(message).toContain('10,485,761 bytes');
    expect(message).toContain('10,485,760 bytes');
  });
  it('refuses an empty file', () => {
    expect(uploadProblem({ name: 'empty.txt', size: 0 })).toMatch(/empty/);
  });
  it('mediaType drops the parameters', () => {
    expect(mediaType('text/plain; charset=utf-8')).toBe('text/plain');
    expect(mediaType('application/pdf')).toBe('application/pdf');
  });
});

describe('snippets', () => {
  it('randomUuid gives version 4 UUIDs', () => {
    expect(randomUuid()).toMatch(UUID);
    expect(randomUuid((b) => b.fill(0xff))).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
  });
  it('the SDK setup is the documented three lines, with the key or the placeholder', () => {
    const text = sdkSnippetText('lk_abc', 'http://localhost:8080');
    expect(text.split('\n')).toHaveLength(3);
    expect(text).toContain(`import { createLantern } from '@lantern/sdk-node';`);
    expect(text).toContain(`createLantern({ apiKey: 'lk_abc', ingestUrl: 'http://localhost:8080' })`);
    expect(text).toContain('app.use(lantern.middleware());');
    expect(sdkSnippetText(undefined, 'http://x')).toContain(`apiKey: '${KEY_PLACEHOLDER}'`);
    expect(sdkSnippetText(`a'b\\c`, 'http://x')).toContain(`apiKey: 'a\\'b\\\\c'`);
  });
  it('the curl command posts a valid one-span batch with x-api-key', () => {
    const ids = { traceId: randomUuid(), spanId: randomUuid() };
    const text = curlSnippetText('lk_abc', 'http://localhost:8080/', ids);
    expect(text).toContain(`curl -X POST 'http://localhost:8080/ingest/traces'`);
    expect(text).toContain(`-H 'x-api-key: lk_abc'`);
    expect(text).toContain(`-H 'content-type: application/json'`);
    // What the shell passes to -d once `date` has run.
    const body = /-d '(.*)'$/s.exec(text)![1]!.replaceAll(`'"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'`, '2026-11-22T10:43:34Z');
    const batch = JSON.parse(body) as { timestamp: string; traces: Record<string, unknown>[] };
    expect(batch.timestamp).toBe('2026-11-22T10:43:34Z');
    expect(batch.traces).toEqual([expect.objectContaining({
      traceId: ids.traceId, spanId: ids.spanId, parentSpanId: null, timestamp: '2026-11-22T10:43:34Z',
      requestMethod: 'controller:GET', responseStatus: 200,
    })]);
    expect(curlSnippetText(undefined, 'http://x', ids)).toContain(`x-api-key: ${KEY_PLACEHOLDER}`);
  });
  it('the OpenTelemetry environment names the endpoint, the key as x-api-key, http/protobuf and no metrics', () => {
    expect(otelSnippetText('lk_abc', 'http://localhost:8080/').split('\n')).toEqual([
      `export OTEL_EXPORTER_OTLP_ENDPOINT='http://localhost:8080'`,
      `export OTEL_EXPORTER_OTLP_HEADERS='x-api-key=lk_abc'`,
      'export OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf',
      'export OTEL_METRICS_EXPORTER=none',
      `export OTEL_SERVICE_NAME='my-service'`,
    ]);
    expect(otelSnippetText(undefined, 'http://x')).toContain(`x-api-key=${KEY_PLACEHOLDER}`);
    expect(otelSnippetText('k', 'http://x', `Bob's shop`)).toContain(`export OTEL_SERVICE_NAME='Bob'\\''s shop'`);
    expect(otelSnippetText(`a'b`, 'http://x')).toContain(`'x-api-key=a'\\''b'`);
  });
});
