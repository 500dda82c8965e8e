import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openSqliteStore, type Store } from '@lantern/store';
import type { LogEntry } from '@lantern/domain';
import { logBatch, logEntry, makeWorld, T0, type World } from '../../../packages/store/src/contract/fixtures.js';
import { everyPage, logLines } from '../src/export.js';

/** An export's pages are read whole before they are handed on: the read budget times the store, not the client. */
describe('everyPage', () => {
  let store: Store;
  let w: World;
  const COUNT = 1500;
  beforeAll(async () => {
    store = await openSqliteStore({ file: ':memory:' });
    w = await makeWorld(store, 'export');
    await store.writeLogs(logBatch(w.app, Array.from({ length: COUNT }, (_, i) => logEntry(w.app, T0 + i))));
  });
  afterAll(() => store.close());

  const pages = (budgetMs: number) => everyPage((cursor, limit) => store.streamLogs({ userId: w.user.id, projectId: w.project.id, cursor, limit, budgetMs }),
    (l: LogEntry) => ({ ts: Date.parse(l.timestamp), id: l.id }), undefined);

  it('streams every record to a client slower than the read budget, each once, newest first', async () => {
    const ids: string[] = [];
    for await (const log of pages(300)) {
      ids.push(log.id);
      // A client that takes 100 ms for every hundred records: 1.5 s in all, five times the budget.
      if (ids.length % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(ids).toHaveLength(COUNT);
    expect(new Set(ids).size).toBe(COUNT);
  });

  it('reads the first record of a CSV before its header, so a failing first read still answers its error', async () => {
    const failing = (async function* (): AsyncGenerator<LogEntry> {
      throw new Error('the store is down');
    })();
    const it = logLines('csv', failing)[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toThrow('the store is down');
    const empty = logLines('csv', (async function* (): AsyncGenerator<LogEntry> {})())[Symbol.asyncIterator]();
    await expect(empty.next()).resolves.toEqual({ done: false, value: expect.stringMatching(/^id,timestamp,level,/) });
  });
});
