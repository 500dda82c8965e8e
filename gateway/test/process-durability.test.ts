import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openSqliteStore } from '@lantern/store';
import { childEnv, killLeftovers, parseInit, runCli, startServer, tempDataDir, within } from './process-helpers.js';

/**
 * "200 means durable", tested the hard way: the embedded server (writer thread, group commit) under concurrent
 * span and log traffic with new ids, killed with SIGKILL while requests are in flight. Every span and log entry
 * of every request answered 200 before the kill must be in the database afterwards.
 */

const EMAIL = 'durable@example.com';
const PASSWORD = 'a long enough password';

function spanBody(i: number): { body: string; ids: string[] } {
  const now = new Date().toISOString();
  const traces = [];
  const ids: string[] = [];
  for (let t = 0; t < 20; t++) {
    const traceId = randomUUID();
    const rootId = randomUUID();
    for (let s = 0; s < 10; s++) {
      const spanId = s === 0 ? rootId : randomUUID();
      ids.push(spanId);
      traces.push({ traceId, spanId, parentSpanId: s === 0 ? null : rootId, timestamp: now, requestMethod: s === 0 ? 'controller:GET' : 'service:work', requestURL: `/r/${i}`, responseStatus: 200, durationMs: 3 });
    }
  }
  return { body: JSON.stringify({ timestamp: now, traces }), ids };
}

function logBody(): { body: string; messages: string[] } {
  const now = new Date().toISOString();
  const messages = Array.from({ length: 100 }, () => `durable ${randomUUID()}`);
  return { body: JSON.stringify({ timestamp: now, logs: messages.map((message) => ({ level: 'info', message, timestamp: now })) }), messages };
}

describe('durability under SIGKILL (embedded server)', () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  beforeEach(async () => {
    data = await tempDataDir();
  });
  afterEach(async () => {
    killLeftovers();
    await data.remove();
  });
  afterAll(killLeftovers);

  it('keeps every span and log entry answered 200 before the process was killed mid-load', async () => {
    const init = await runCli(['init', '--email', EMAIL, '--password', PASSWORD], childEnv({ DATA_DIR: data.dir }));
    expect(init.code).toBe(0);
    const { apiKey } = parseInit(init.stdout);
    const server = await startServer(childEnv({ DATA_DIR: data.dir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'warn' }));

    const ackedSpans: string[][] = [];
    const ackedLogs: string[][] = [];
    let inFlight = 0;
    let inFlightAtKill = -1;
    let killed = false;
    const post = async (path: string, body: string): Promise<number> => {
      inFlight++;
      try {
        const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body });
        await res.arrayBuffer();
        return res.status;
      } catch {
        return 0; // the connection died with the process
      } finally {
        inFlight--;
      }
    };
    const loop = async (worker: number) => {
      for (let i = 0; !killed; i++) {
        if ((worker + i) % 3 === 0) {
          const { body, messages } = logBody();
          if ((await post('/ingest/logs', body)) === 200 && !killed) ackedLogs.push(messages);
        } else {
          const { body, ids } = spanBody(i);
          if ((await post('/ingest/traces', body)) === 200 && !killed) ackedSpans.push(ids);
        }
      }
    };
    const loops = Array.from({ length: 6 }, (_, w) => loop(w));
    // Kill once enough has been acknowledged that the writer is surely busy, while requests are in flight.
    await within('60 acknowledged requests', (async () => {
      while (ackedSpans.length + ackedLogs.length < 60) await new Promise((r) => setTimeout(r, 5));
    })(), 60_000);
    while (inFlight < 3) await new Promise((r) => setImmediate(r));
    inFlightAtKill = inFlight;
    server.child.kill('SIGKILL');
    killed = true;
    const exit = await within('the killed server to exit', server.exited);
    await Promise.all(loops);
    expect(exit.signal).toBe('SIGKILL');
    expect(inFlightAtKill).toBeGreaterThanOrEqual(3);

    // Read back through the store port (a new connection recovers the WAL, as the next start would).
    const store = await openSqliteStore({ file: join(data.dir, 'lantern.db') });
    try {
      const user = await store.findUserByEmail(EMAIL);
      const [membership] = await store.listMemberships(user!.id);
      const [project] = await store.listProjects(membership!.id, user!.id);
      const storedSpans = new Set<string>();
      for await (const record of store.streamTraces({ userId: user!.id, projectId: project!.id })) {
        for (const span of record.telemetry) storedSpans.add(span.spanId);
      }
      const storedMessages = new Set<string>();
      for await (const log of store.streamLogs({ userId: user!.id, projectId: project!.id })) storedMessages.add(log.message);
      const lostSpans = ackedSpans.flat().filter((id) => !storedSpans.has(id));
      const lostLogs = ackedLogs.flat().filter((m) => !storedMessages.has(m));
      expect({ lostSpans: lostSpans.length, lostLogs: lostLogs.length }).toEqual({ lostSpans: 0, lostLogs: 0 });
      expect(ackedSpans.length).toBeGreaterThan(0);
      expect(ackedLogs.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  }, 120_000);
});
