import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import express4 from 'express4';
import winston from 'winston';
import { createLantern, type Lantern, type LanternError } from '@lantern/sdk-node';
import { LanternTransport } from '@lantern/sdk-node/winston';
import { createAccount, readLogs, readTraces, startRealLantern, type Account, type RealLantern, type StoredSpan, type TraceRecord } from './helpers/real-lantern.js';
import { sleep } from './helpers/wait.js';

/**
 * Against the real Lantern, in-process: instrumented Express 5, Express 4 and node:http apps; the spans and
 * logs are read back through GET /logs/project and GET /ingest/logs.
 */

let lantern: RealLantern;
let account: Account;
let apiKeys: string[];
const servers: http.Server[] = [];
const errors: LanternError[] = [];

beforeAll(async () => {
  lantern = await startRealLantern();
  ({ account, apiKeys } = await createAccount(lantern, 5));
}, 60_000);
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  await lantern.stop();
});

const client = (apiKey: string, extra: Parameters<typeof createLantern>[0] = {}) =>
  createLantern({ apiKey, ingestUrl: lantern.url, flushIntervalMs: 60_000, flushOnExit: false, onError: (e) => errors.push(e), ...extra });

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The work of a checkout: controller > call > service, an error log with fields, a winston warning. */
async function checkout(l: Lantern, logger: winston.Logger) {
  return l.controller('checkout', async () => {
    const stock = await l.call('inventory', async () =>
      l.service('reserveStock', async () => {
        await sleep(3);
        return { status: 201, reserved: 2 };
      }),
    );
    l.log.error('payment declined', { orderId: 42, card: { last4: '4242' }, level: 'not the level' });
    logger.warn('low stock', { sku: 'A1' });
    return stock;
  });
}

const winstonFor = (l: Lantern) => winston.createLogger({ level: 'debug', transports: [new LanternTransport({ lantern: l })] });

/** One instrumented app of each kind, same routes: GET /checkout and GET /boom (throws). */
const apps: Record<string, (l: Lantern) => Promise<string>> = {
  'Express 5': async (l) => {
    const app = express();
    const logger = winstonFor(l);
    app.use(l.middleware());
    app.get('/checkout', async (_req, res) => void res.json({ trace: l.currentTrace(), result: await checkout(l, logger) }));
    app.get('/boom', () => {
      throw new Error('handler exploded');
    });
    app.use(l.errorHandler());
    return listen(app);
  },
  'Express 4': async (l) => {
    const app = express4();
    const logger = winstonFor(l);
    app.use(l.middleware());
    app.get('/checkout', (_req, res, next) => {
      checkout(l, logger).then((result) => res.json({ trace: l.currentTrace(), result }), next);
    });
    app.get('/boom', () => {
      throw new Error('handler exploded');
    });
    app.use(l.errorHandler());
    return listen(app);
  },
  'node:http (gzip on every body)': async (l) => {
    const logger = winstonFor(l);
    return listen(
      l.wrap(async (req, res) => {
        if (req.url?.startsWith('/boom')) throw new Error('handler exploded');
        const result = await checkout(l, logger);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ trace: l.currentTrace(), result }));
      }),
    );
  },
};

const spansOf = (records: TraceRecord[], traceId: string) => records.filter((r) => r.traceId === traceId).flatMap((r) => r.telemetry);

describe.each(Object.entries(apps).map(([name, make], i) => ({ name, make, i })))('$name', ({ name, make, i }) => {
  it('every span and log of a request arrives once, with the right fields and parent/child links', async () => {
    const l = client(apiKeys[i]!, name.startsWith('node:http') ? { gzipThresholdBytes: 0 } : {});
    const url = await make(l);
    const res = await fetch(`${url}/checkout?coupon=SECRET`);
    expect(res.status).toBe(200);
    const { trace, result } = (await res.json()) as { trace: { traceId: string; spanId: string }; result: unknown };
    expect(result).toEqual({ status: 201, reserved: 2 });
    const boom = await fetch(`${url}/boom`);
    expect(boom.status).toBe(500);
    const stats = await l.close();
    expect(stats.traces).toMatchObject({ sent: 5, dropped: 0, failed: 0, rejected: 0 });
    expect(stats.logs).toMatchObject({ sent: 2, dropped: 0, failed: 0, rejected: 0 });

    const records = await readTraces(lantern, account);
    const spans = spansOf(records, trace.traceId);
    expect(spans).toHaveLength(4);
    const by = (method: string) => spans.find((s) => s.requestMethod === method)!;
    const root = by('controller:GET');
    const ctrl = by('controller:checkout');
    const external = by('external:inventory');
    const service = by('service:reserveStock');
    expect(root).toMatchObject({ spanId: trace.spanId, parentSpanId: null, requestURL: '/checkout', responseStatus: 200 });
    expect(ctrl).toMatchObject({ parentSpanId: root.spanId, requestURL: '/checkout', responseStatus: 200 });
    expect(external).toMatchObject({ parentSpanId: ctrl.spanId, requestURL: 'inventory', responseStatus: 201 });
    expect(service).toMatchObject({ parentSpanId: external.spanId, responseStatus: 200 });
    for (const s of spans) {
      expect(s.traceId).toBe(trace.traceId);
      expect(Number.isInteger(s.durationMs)).toBe(true);
      expect(s.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(service.durationMs).toBeGreaterThanOrEqual(2);
    expect(root.durationMs).toBeGreaterThanOrEqual(service.durationMs);
    expect(Date.parse(root.timestamp)).toBeLessThanOrEqual(Date.parse(service.timestamp));

    const failed = records.flatMap((r) => r.telemetry).filter((s) => s.requestMethod === 'controller:GET' && s.requestURL === '/boom' && s.traceId !== trace.traceId);
    const ownBoom = failed.filter((s) => records.find((r) => r.traceId === s.traceId)?.applicationId === records.find((r) => r.traceId === trace.traceId)!.applicationId);
    expect(ownBoom).toHaveLength(1);
    expect(ownBoom[0]).toMatchObject({ responseStatus: 500, error: 'handler exploded', parentSpanId: null });

    // Every span id of the project is stored once.
    const ids = records.flatMap((r) => r.telemetry.map((s) => s.spanId));
    expect(new Set(ids).size).toBe(ids.length);

    const logs = (await readLogs(lantern, account)).filter((g) => g.traceId === trace.traceId);
    expect(logs).toHaveLength(2);
    const error = logs.find((g) => g.level === 'error')!;
    expect(error).toMatchObject({ type: 'app', message: 'payment declined', orderId: 42, card: { last4: '4242' }, _level: 'not the level', spanId: ctrl.spanId, projectId: account.projectId });
    expect(error.timestamp).toMatch(/Z$/);
    expect(error.clientTimestamp).toMatch(/Z$/);
    const warn = logs.find((g) => g.level === 'warn')!;
    expect(warn).toMatchObject({ type: 'app', message: 'low stock', sku: 'A1' });
  });
});

describe('a trace crossing two instrumented apps', () => {
  it('lands under one traceId; the callee root span has the caller external span as parent', async () => {
    const a = client(apiKeys[3]!);
    const b = client(apiKeys[4]!);
    const bUrl = await listen(
      b.wrap((req, res) => {
        b.log.info('served by B');
        res.end(JSON.stringify(b.currentTrace()));
      }),
    );
    const app = express();
    app.use(a.middleware());
    app.get('/front', async (_req, res) => {
      const answer = await a.call('app-b', (headers) => fetch(`${bUrl}/back`, { headers: { ...headers } }), { url: `${bUrl}/back?x=1` });
      res.json({ a: a.currentTrace(), b: await answer.json() });
    });
    const aUrl = await listen(app);
    const { a: aTrace, b: bTrace } = (await (await fetch(`${aUrl}/front`)).json()) as Record<'a' | 'b', { traceId: string; spanId: string }>;
    expect(bTrace.traceId).toBe(aTrace.traceId);
    await Promise.all([a.close(), b.close()]);

    const records = (await readTraces(lantern, account)).filter((r) => r.traceId === aTrace.traceId);
    expect(records).toHaveLength(2); // one record per application, one traceId
    const spans = records.flatMap((r) => r.telemetry);
    const aRoot = spans.find((s: StoredSpan) => s.spanId === aTrace.spanId)!;
    const external = spans.find((s) => s.requestMethod === 'external:app-b')!;
    const bRoot = spans.find((s) => s.spanId === bTrace.spanId)!;
    expect(aRoot).toMatchObject({ requestMethod: 'controller:GET', requestURL: '/front', parentSpanId: null });
    expect(external).toMatchObject({ parentSpanId: aRoot.spanId, responseStatus: 200, requestURL: `${bUrl}/back` });
    expect(bRoot).toMatchObject({ requestMethod: 'controller:GET', requestURL: '/back', parentSpanId: external.spanId });
    const logs = (await readLogs(lantern, account)).filter((g) => g.message === 'served by B');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ traceId: aTrace.traceId, spanId: bRoot.spanId, level: 'info' });
  });
});

describe('the real service', () => {
  it('accepts gzip bodies of a large batch, and nothing was reported as a problem in this file', async () => {
    const l = client(apiKeys[0]!, { gzipThresholdBytes: 1024, maxBatchSize: 2_000 });
    for (let i = 0; i < 1_500; i++) l.log.info(`bulk ${i}`, { padding: 'p'.repeat(200) });
    const stats = await l.close();
    expect(stats.logs).toMatchObject({ sent: 1_500, failed: 0, rejected: 0 });
    const stored = (await readLogs(lantern, account)).filter((g) => g.message.startsWith('bulk '));
    expect(new Set(stored.map((g) => g.message)).size).toBe(1_500);
    expect(stored).toHaveLength(1_500);
    expect(errors).toEqual([]);
  });
});
