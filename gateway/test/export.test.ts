import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { bearer, createTenancy, log, span, startLantern, type Lantern, type Tenancy } from './harness.js';
import { iso, MINUTE, sendAllTraces, sendLogs, T0 } from './telemetry-helpers.js';

/** A response body as text, whatever its media type (supertest parses only the ones it knows). */
const text = (req: ReturnType<Lantern['http']['get']>) => req.buffer(true).parse((res, done) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (body += chunk));
  res.on('end', () => done(null, body));
});

/** RFC 4180 lines, enough for these tests: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(body: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; } else if (c === '\r' && body[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i++; } else field += c;
  }
  return rows;
}

/** Issue 19, item 8: every record a filter matches, exported as NDJSON or CSV, streamed, with no time cap. */
describe('GET /logs/project and GET /ingest/logs: exports', () => {
  let l: Lantern;
  let t: Tenancy;
  let other: Tenancy;
  const COUNT = 2500;

  beforeAll(async () => {
    // A stream budget of 1 ms: the unpaged JSON array of this project ends at once; an export is paged, a page per
    // read with the read budget, and is not capped by it.
    l = await startLantern({ streamBudgetMs: 1 });
    t = await createTenancy(l, 'export');
    other = await createTenancy(l, 'export-other');
    await sendAllTraces(l, t.apiKey, Array.from({ length: COUNT }, (_, i) => span({
      timestamp: iso(T0 + i * 1000), requestURL: i === 7 ? '=HYPERLINK("http://evil.example")' : `/items/${i}`,
      responseStatus: i % 10 === 0 ? 503 : 200, ...(i % 2 ? { serviceName: 'shop', name: 'GET', kind: 'server', attributes: [{ key: 'http.route', value: '/items/:id' }] } : {}),
    })));
    const logs = Array.from({ length: 30 }, (_, i) => log({ level: i % 3 ? 'info' : 'error', message: i === 4 ? 'quote "this", then\na new line' : `request ${i}`, timestamp: iso(T0 + i * MINUTE), region: 'eu-west' }));
    await sendLogs(l, t.apiKey, { timestamp: new Date().toISOString(), logs }).expect(200);
  }, 60_000);
  afterAll(() => l.stop());

  const get = (path: string, token = t.token) => text(l.http.get(path).set(bearer(token)));

  it('exports every trace record of the project as NDJSON, page after page, past the stream budget', async () => {
    const res = await get(`/logs/project?id=${t.projectId}&format=ndjson`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="lantern-traces-project-\d+-.+\.ndjson"$/);
    const lines = (res.body as string).split('\n');
    expect(lines.pop()).toBe('');
    const records = lines.map((line) => JSON.parse(line) as { id: string; timestamp: string; telemetry: unknown[] });
    expect(records).toHaveLength(COUNT);
    expect(new Set(records.map((r) => r.id)).size).toBe(COUNT);
    expect(records.every((r, i) => i === 0 || r.timestamp <= records[i - 1]!.timestamp)).toBe(true);
    expect(records[0]!.telemetry).toHaveLength(1);
    // The same read as a JSON array ends at its stream budget with the read_timeout marker.
    const array = await l.http.get(`/logs/project?id=${t.projectId}`).set(bearer(t.token));
    expect((array.body as unknown[]).length).toBeLessThan(COUNT + 1);
  });

  it('exports trace records as CSV: a row per record of its root span, filters applied, formulas defused', async () => {
    const res = await get(`/logs/project?id=${t.projectId}&format=csv&status=5xx`);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const rows = parseCsv(res.body as string);
    expect(rows[0]).toEqual(['id', 'traceId', 'projectId', 'applicationId', 'timestamp', 'spans', 'service', 'operation', 'requestMethod', 'requestURL', 'responseStatus', 'durationMs']);
    expect(rows).toHaveLength(1 + COUNT / 10);
    expect(new Set(rows.slice(1).map((r) => r[10]))).toEqual(new Set(['503']));
    const all = parseCsv((await get(`/logs/project?id=${t.projectId}&format=csv&url=HYPERLINK`)).body as string);
    expect(all).toHaveLength(2);
    expect(all[1]![9]).toBe('\'=HYPERLINK("http://evil.example")');
    const named = parseCsv((await get(`/logs/project?id=${t.projectId}&format=csv&limit=2`)).body as string);
    expect(named).toHaveLength(3);
    expect(named.slice(1).map((r) => [r[6], r[7]])).toEqual([['shop', 'GET /items/:id'], ['', 'GET']]);
  });

  it('exports logs as NDJSON and CSV with the read\'s filters; CSV keeps each log\'s other fields as JSON', async () => {
    const nd = await get(`/ingest/logs?projectId=${t.projectId}&format=ndjson&level=error`);
    const logs = (nd.body as string).trim().split('\n').map((line) => JSON.parse(line) as { level: string; region: string });
    expect(logs).toHaveLength(10);
    expect(logs.every((g) => g.level === 'error' && g.region === 'eu-west')).toBe(true);
    const csv = parseCsv((await get(`/ingest/logs?projectId=${t.projectId}&format=csv&q=quote`)).body as string);
    expect(csv[0]).toEqual(['id', 'timestamp', 'level', 'projectId', 'applicationId', 'traceId', 'spanId', 'type', 'message', 'fields']);
    expect(csv).toHaveLength(2);
    expect(csv[1]![8]).toBe('quote "this", then\na new line');
    expect(JSON.parse(csv[1]![9]!)).toEqual({ region: 'eu-west', clientTimestamp: expect.any(String) });
  });

  it('caps an export with limit and starts it at a cursor', async () => {
    const first = await l.http.get(`/logs/project?id=${t.projectId}&limit=5`).set(bearer(t.token));
    const cursor = first.headers['x-next-cursor'] as string;
    const res = await get(`/logs/project?id=${t.projectId}&format=ndjson&limit=900&cursor=${cursor}`);
    const ids = (res.body as string).trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).toHaveLength(900);
    expect(ids).not.toContain((first.body as Array<{ id: string }>)[4]!.id);
  });

  it('answers a bad format with 400 and another organization\'s project with 404, in the error body', async () => {
    expectError(await l.http.get(`/logs/project?id=${t.projectId}&format=xml`).set(bearer(t.token)), 400, 'validation_failed');
    expectError(await l.http.get(`/ingest/logs?format=ndjson,csv`).set(bearer(t.token)), 400, 'validation_failed');
    const foreign = await l.http.get(`/logs/project?id=${other.projectId}&format=csv`).set(bearer(t.token));
    expectError(foreign, 404, 'not_found');
    // An export of nothing is a header row (CSV), or nothing at all (NDJSON).
    expect((await get(`/logs/project?id=${t.projectId}&format=ndjson&traceId=6f1c2b0e-6d1a-4a55-8f4e-2b8d2f6b1c11`)).body).toBe('');
    expect(parseCsv((await get(`/ingest/logs?projectId=${t.projectId}&format=csv&level=trace`)).body as string)).toHaveLength(1);
  });
});
