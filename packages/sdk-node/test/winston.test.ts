import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import winston from 'winston';
import { LanternTransport, lanternLevel } from '@lantern/sdk-node/winston';
import { FaultServer } from './helpers/fault-server.js';
import { testClient, type TestClient } from './helpers/clients.js';

/** The winston transport: one line of config, levels mapped, fields kept, each log with its own request's trace. */

let ingest: FaultServer;
let c: TestClient;
beforeAll(async () => {
  ingest = await FaultServer.start();
  c = testClient(ingest.url, { logLevel: 'trace' });
});
afterAll(async () => {
  await c.lantern.close();
  await ingest.close();
});

const logs = () => ingest.items('logs') as Array<Record<string, unknown>>;

describe('LanternTransport', () => {
  it('maps winston levels (npm, syslog) to Lantern levels', () => {
    expect(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'].map(lanternLevel)).toEqual(['error', 'warn', 'info', 'info', 'debug', 'debug', 'trace']);
    expect(['emerg', 'alert', 'crit', 'warning', 'notice', 'fatal', 'unknown'].map(lanternLevel)).toEqual(['fatal', 'fatal', 'fatal', 'warn', 'info', 'fatal', 'info']);
  });

  it('sends messages with their fields, winston timestamp and colorized levels handled; fatal-like levels at once', async () => {
    const logger = winston.createLogger({
      levels: winston.config.syslog.levels,
      level: 'debug',
      format: winston.format.combine(winston.format.timestamp(), winston.format.colorize(), winston.format.json()),
      transports: [new LanternTransport({ lantern: c.lantern })],
    });
    logger.log('warning', 'disk almost full', { volume: '/data', percent: 91 });
    logger.log('crit', 'disk full');
    await new Promise((r) => setTimeout(r, 0));
    await c.lantern.flush();
    const warning = logs().find((l) => l.message === 'disk almost full')!;
    expect(warning).toMatchObject({ level: 'warn', type: 'app', volume: '/data', percent: 91 });
    expect(warning.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const crit = logs().find((l) => l.message === 'disk full')!;
    expect(crit.level).toBe('fatal');
    const critRequest = ingest.requests('logs').find((r) => r.body.logs!.some((l) => l.message === 'disk full'))!;
    expect(critRequest.body.logs).toHaveLength(1);
  });

  it('300 concurrent requests logging through winston: each log carries its own request trace', async () => {
    const logger = winston.createLogger({ transports: [new LanternTransport({ lantern: c.lantern })] });
    const server = http.createServer(
      c.lantern.wrap(async (req, res) => {
        const trace = c.lantern.currentTrace()!;
        await new Promise((r) => setTimeout(r, Math.random() * 5));
        logger.info(`request ${req.url}`, { expectedTrace: trace.traceId });
        res.end();
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await Promise.all(Array.from({ length: 300 }, (_, i) => fetch(`${url}/w${i}`).then((r) => r.text())));
    } finally {
      server.closeAllConnections();
      server.close();
    }
    await c.lantern.flush();
    const mine = logs().filter((l) => String(l.message).startsWith('request /w'));
    expect(mine).toHaveLength(300);
    for (const l of mine) expect(l.traceId).toBe(l.expectedTrace);
  });

  it('needs the client', () => {
    expect(() => new LanternTransport({} as never)).toThrow(/option "lantern" must be the client made by createLantern\(\)/);
  });
});
