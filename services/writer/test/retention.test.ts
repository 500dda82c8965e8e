import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { newId, toIso } from '@lantern/domain';
import type { Application, LogEntry, Span } from '@lantern/domain';
import { createLogger, type Logger } from '@lantern/logging';
import { openSqliteStore, type Store } from '@lantern/store';
import { createRetention, type RetentionDeps } from '@lantern/writer';

/**
 * RETENTION_DAYS against the real SQLite store: what the periodic purge deletes and keeps, and how it behaves
 * when the store fails or the process stops while a purge runs.
 */

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-01T12:00:00.000Z');

/** The logger of the services, writing its JSON lines where the test can read them. */
function capturingLogger(): { logger: Logger; entries: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  return { logger: createLogger({ service: 'writer-test', level: 'debug', stream }), entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** Winston hands lines to its transports asynchronously: polls until `count` are there. */
async function entriesOf(capture: ReturnType<typeof capturingLogger>, count: number): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + 2000;
  while (capture.entries().length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  return capture.entries();
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Whether `promise` settled within a few turns of the event loop. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

const rootSpan = (at: number): Span => ({
  timestamp: toIso(at),
  requestMethod: 'controller:GET /items',
  requestURL: '/items',
  responseStatus: 200,
  traceId: newId(),
  spanId: newId(),
  parentSpanId: null,
  durationMs: 5,
});

const logAt = (app: Application, at: number): LogEntry => ({
  id: newId(),
  projectId: app.projectId,
  applicationId: app.id,
  level: 'info',
  type: 'app',
  message: `log at ${toIso(at)}`,
  timestamp: toIso(at),
  clientTimestamp: toIso(at),
});

describe('createRetention on the SQLite store', () => {
  let store: Store;
  let app: Application;
  let userId: string;
  let capture: ReturnType<typeof capturingLogger>;

  beforeEach(async () => {
    store = await openSqliteStore({ file: ':memory:' });
    const user = await store.createUser({ email: `r-${newId()}@example.test`, name: 'Retention', passwordHash: 'hash' });
    const org = await store.createOrganization({ name: 'Org', ownerId: user.id });
    const project = await store.createProject({ name: 'Project', organizationId: org.id });
    app = await store.createApplication({ name: 'app', projectId: project.id });
    userId = user.id;
    capture = capturingLogger();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await store.close();
  });

  const traceIds = async (): Promise<string[]> => {
    const out: string[] = [];
    for await (const r of store.streamTraces({ userId, projectId: app.projectId })) out.push(r.traceId);
    return out;
  };
  const logIds = async (): Promise<string[]> => {
    const out: string[] = [];
    for await (const l of store.streamLogs({ userId })) out.push(l.id);
    return out;
  };
  const writeSpans = (spans: Span[]) => store.writeSpans({ kind: 'spans', applicationId: app.id, projectId: app.projectId, receivedAt: toIso(NOW), spans });
  const writeLogs = (logs: LogEntry[]) => store.writeLogs({ kind: 'logs', applicationId: app.id, projectId: app.projectId, receivedAt: toIso(NOW), logs });
  const retention = (deps: Partial<RetentionDeps> = {}) => createRetention({ store, logger: capture.logger, days: 7, now: () => NOW, ...deps });

  it('runOnce deletes telemetry older than `days` before now, keeps the rest, and logs how much went', async () => {
    const [oldTrace, edgeTrace, newTrace] = [rootSpan(NOW - 8 * DAY), rootSpan(NOW - 7 * DAY), rootSpan(NOW - 6 * DAY)];
    await writeSpans([oldTrace, edgeTrace, newTrace]);
    const [oldLog, olderLog, edgeLog, newLog] = [logAt(app, NOW - 7 * DAY - 1), logAt(app, NOW - 30 * DAY), logAt(app, NOW - 7 * DAY), logAt(app, NOW - 1000)];
    await writeLogs([oldLog, olderLog, edgeLog, newLog]);

    expect(await retention().runOnce()).toBe(3);
    expect((await traceIds()).sort()).toEqual([edgeTrace.traceId, newTrace.traceId].sort());
    expect(await logIds()).toEqual([newLog.id, edgeLog.id]);
    const [entry] = await entriesOf(capture, 1);
    expect(entry).toMatchObject({ level: 'info', message: 'retention purge', removed: 3, days: 7, service: 'writer-test' });

    // Nothing left to delete: 0, and no line.
    expect(await retention().runOnce()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(capture.entries()).toHaveLength(1);
  });

  it('the cut-off moves with the injected clock', async () => {
    const t = rootSpan(NOW - 2 * DAY);
    await writeSpans([t]);
    let now = NOW;
    const r = retention({ days: 3, now: () => now });
    expect(await r.runOnce()).toBe(0);
    expect(await traceIds()).toEqual([t.traceId]);
    now = NOW + DAY + 1;
    expect(await r.runOnce()).toBe(1);
    expect(await traceIds()).toEqual([]);
  });

  it('days = 0 keeps everything: runOnce purges nothing and start() sets no timer', async () => {
    await writeSpans([rootSpan(NOW - 3650 * DAY)]);
    await writeLogs([logAt(app, NOW - 3650 * DAY)]);
    const purge = jest.spyOn(store, 'purgeTelemetryBefore');
    const setIntervalSpy = jest.spyOn(globalThis, 'setInterval');
    const r = retention({ days: 0, intervalMs: 5 });
    expect(await r.runOnce()).toBe(0);
    r.start();
    expect(setIntervalSpy).not.toHaveBeenCalled();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(purge).not.toHaveBeenCalled();
    await r.stop();
    expect(await traceIds()).toHaveLength(1);
    expect(await logIds()).toHaveLength(1);
    expect(capture.entries()).toEqual([]);
  });

  it('start() purges at once, then every interval on an unref-ed timer, until stop()', async () => {
    await writeSpans([rootSpan(NOW - 8 * DAY)]);
    const purge = jest.spyOn(store, 'purgeTelemetryBefore');
    const setIntervalSpy = jest.spyOn(globalThis, 'setInterval');
    const r = retention({ intervalMs: 10 });
    try {
      r.start();
      r.start(); // a second start is ignored
      expect(setIntervalSpy).toHaveBeenCalledTimes(1);
      const timer = setIntervalSpy.mock.results[0]!.value as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
      expect(purge).toHaveBeenCalledTimes(1);
      expect(purge).toHaveBeenLastCalledWith(NOW - 7 * DAY);
      const deadline = Date.now() + 2000;
      while (purge.mock.calls.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(purge.mock.calls.length).toBeGreaterThanOrEqual(3);
    } finally {
      await r.stop();
    }
    const calls = purge.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(purge).toHaveBeenCalledTimes(calls);
    expect(await traceIds()).toEqual([]);
  });

  it('a purge that fails is logged as a warning; runOnce resolves 0 and the next run tries again', async () => {
    let fail = true;
    const calls: number[] = [];
    const flaky: RetentionDeps['store'] = {
      purgeTelemetryBefore: (cutoff) => {
        calls.push(cutoff);
        return fail ? Promise.reject(new Error('store unavailable: connection refused')) : store.purgeTelemetryBefore(cutoff);
      },
    };
    await writeSpans([rootSpan(NOW - 8 * DAY)]);
    const r = retention({ store: flaky });
    await expect(r.runOnce()).resolves.toBe(0);
    const [warning] = await entriesOf(capture, 1);
    expect(warning).toMatchObject({ level: 'warn', message: 'retention purge failed; retrying at the next interval', error: 'store unavailable: connection refused' });
    expect(await traceIds()).toHaveLength(1);

    fail = false;
    await expect(r.runOnce()).resolves.toBe(1);
    expect(calls).toEqual([NOW - 7 * DAY, NOW - 7 * DAY]);
    expect(await traceIds()).toEqual([]);
  });

  it('a failure that is not an Error, and one from a timer run, are logged too and never thrown', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const r = retention({ store: { purgeTelemetryBefore: () => Promise.reject('just a string') }, intervalMs: 5 });
      r.start();
      const entries = await entriesOf(capture, 2).finally(() => r.stop());
      expect(entries.length).toBeGreaterThanOrEqual(2);
      for (const e of entries) expect(e).toMatchObject({ level: 'warn', error: 'just a string' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('stop() waits for a purge under way; runs asked for meanwhile share it', async () => {
    await writeSpans([rootSpan(NOW - 8 * DAY), rootSpan(NOW - 9 * DAY)]);
    const gate = deferred();
    let started = 0;
    let finished = false;
    const slow: RetentionDeps['store'] = {
      purgeTelemetryBefore: async (cutoff) => {
        started += 1;
        await gate.promise;
        const n = await store.purgeTelemetryBefore(cutoff);
        finished = true;
        return n;
      },
    };
    const r = retention({ store: slow, intervalMs: 60_000 });
    r.start();
    const again = r.runOnce();
    expect(started).toBe(1);

    const stopped = r.stop();
    expect(await settled(stopped)).toBe(false);
    expect(finished).toBe(false);

    gate.resolve();
    await stopped;
    expect(finished).toBe(true);
    expect(await again).toBe(2);
    expect(started).toBe(1);
    expect(await traceIds()).toEqual([]);
  });

  it('stop() with nothing running, or before start(), resolves at once', async () => {
    const r = retention();
    expect(await settled(r.stop())).toBe(true);
    r.start();
    await r.stop();
    expect(await settled(r.stop())).toBe(true);
  });
});
