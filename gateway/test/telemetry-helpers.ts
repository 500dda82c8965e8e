import { expect } from '@jest/globals';
import type { LogEntry, TraceRecord } from '@lantern/domain';
import type { Response } from 'supertest';
import { bearer, type HttpTarget, type Tenancy } from './harness.js';

/** Helpers of the ingest, reads and metrics tests: send batches, read them back, walk pages. */

/** What the reads return: the domain's own records. */
export type { LogEntry, Span, TraceRecord } from '@lantern/domain';
/** A fixed instant far from "now", so reads are not disturbed by the clock. */
export const T0 = Date.parse('2026-03-01T10:00:00.000Z');
export const MINUTE = 60_000;
export const iso = (ms: number) => new Date(ms).toISOString();

/** The exact q-quantile by nearest rank (the definition the metrics' sketch approximates). */
export function exactQuantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

/** Within 1% of the exact value (plus the 0.005 of rounding to 2 decimals): a percentile of the metrics' sketch. */
export function expectWithin1Percent(actual: number | null, exact: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - exact)).toBeLessThanOrEqual(exact * 0.01 + 0.005);
}

/** Bytes are sent as they are (superagent would otherwise JSON-encode a Buffer under a JSON content type). */
const verbatim = (b: unknown) => b as string;

/** POST with an API key and a JSON content type; `body` is an object, raw JSON text, or raw (e.g. gzip) bytes. */
export function sendIngest(l: HttpTarget, path: string, apiKey: string, body: object | string | Buffer, headers: Record<string, string> = {}) {
  const req = l.http.post(path).set('x-api-key', apiKey).set('Content-Type', 'application/json').set(headers);
  return Buffer.isBuffer(body) ? req.serialize(verbatim).send(body) : req.send(body);
}

/** POST /ingest/traces with an API key. */
export const sendTraces = (l: HttpTarget, apiKey: string, body: object | string | Buffer, headers: Record<string, string> = {}) =>
  sendIngest(l, '/ingest/traces', apiKey, body, headers);

export const sendLogs = (l: HttpTarget, apiKey: string, body: object | string | Buffer, headers: Record<string, string> = {}) =>
  sendIngest(l, '/ingest/logs', apiKey, body, headers);

/** GET with a bearer token; `query` values are URL-encoded. */
export function getAs(l: HttpTarget, token: string, path: string, query: Record<string, string | number> = {}) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return l.http.get(qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path).set(bearer(token));
}

/** The trace records of the tenancy's project (200 expected). */
export async function traces(l: HttpTarget, t: Pick<Tenancy, 'token' | 'projectId'>, query: Record<string, string | number> = {}): Promise<TraceRecord[]> {
  const res = await getAs(l, t.token, '/logs/project', { id: t.projectId, ...query }).expect(200);
  return res.body as TraceRecord[];
}

/** The logs the tenancy's user can see (200 expected). */
export async function logs(l: HttpTarget, t: Pick<Tenancy, 'token'>, query: Record<string, string | number> = {}): Promise<LogEntry[]> {
  const res = await getAs(l, t.token, '/ingest/logs', query).expect(200);
  return res.body as LogEntry[];
}

export const spanIdsOf = (records: TraceRecord[]) => records.flatMap((r) => r.telemetry.map((s) => s.spanId)).sort();
export const traceIdsOf = (records: TraceRecord[]) => records.map((r) => r.traceId).sort();

/** A further application (with its API key) in the tenancy's project. */
export async function addApplication(l: HttpTarget, t: Tenancy, name = 'second app'): Promise<{ applicationId: number; apiKey: string }> {
  const app = await l.http.post('/applications').set(bearer(t.token)).send({ name, projectId: t.projectId }).expect(201);
  const key = await l.http.post(`/applications/${app.body.id}/api-keys`).set(bearer(t.token)).send({ name: 'k' }).expect(201);
  return { applicationId: app.body.id, apiKey: key.body.key };
}

/** A further project (with an application and its API key) in the tenancy's organization. */
export async function addProject(l: HttpTarget, t: Tenancy, name = 'second project'): Promise<{ projectId: number; applicationId: number; apiKey: string }> {
  const project = await l.http.post('/projects').set(bearer(t.token)).send({ name, organizationId: t.organizationId }).expect(201);
  const added = await addApplication(l, { ...t, projectId: project.body.id }, `${name} app`);
  return { projectId: project.body.id, ...added };
}

/** The target of a `Link: <...>; rel="next"` header, or undefined. */
export function nextLink(res: Response): string | undefined {
  const link = res.headers['link'];
  if (link === undefined) return undefined;
  const m = /^<([^>]+)>;\s*rel="next"$/.exec(String(link));
  expect(m).not.toBeNull();
  return m![1];
}

/**
 * Walks every page from `firstUrl` by following `Link: rel="next"`, checking on each page that
 * `X-Next-Cursor` and the link agree. Returns the pages' items.
 */
export async function walkPages<T>(l: HttpTarget, token: string, firstUrl: string, maxPages = 100): Promise<T[][]> {
  const pages: T[][] = [];
  let url: string | undefined = firstUrl;
  while (url !== undefined) {
    const res: Response = await l.http.get(url).set(bearer(token)).expect(200);
    pages.push(res.body as T[]);
    const cursor = res.headers['x-next-cursor'];
    url = nextLink(res);
    if (url === undefined) {
      expect(cursor).toBeUndefined();
    } else {
      expect(typeof cursor).toBe('string');
      expect(new URL(url, 'http://x').searchParams.get('cursor')).toBe(cursor);
    }
    if (pages.length > maxPages) throw new Error('the pages do not end');
  }
  return pages;
}

/** Sends `items` in batches of at most `size` and expects each accepted in full. */
export async function sendAllTraces(l: HttpTarget, apiKey: string, spans: object[], size = 2000): Promise<void> {
  for (let i = 0; i < spans.length; i += size) {
    const chunk = spans.slice(i, i + size);
    const res = await sendTraces(l, apiKey, { timestamp: new Date().toISOString(), traces: chunk }).expect(200);
    expect(res.body).toEqual({ accepted: chunk.length, rejected: [] });
  }
}
