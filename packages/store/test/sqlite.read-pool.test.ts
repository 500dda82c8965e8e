import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { AppError } from '@lantern/domain';
import { openSqliteStore } from '@lantern/store';
import type { Store } from '@lantern/store';
import { collect, logBatch, logEntry, makeWorld, T0 } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';
import { startReadPool, type ReadPool } from '../src/sqlite/read-pool.js';

/**
 * A read worker that dies (here: terminated, as a crash would end it) while a stream waits between two batches:
 * the stream fails with 503 unavailable, never ends short as if it were complete, and a new worker serves the
 * reads that come after. 300 logs are three batches of 100 (BATCH_ITEMS).
 */
describe('sqlite read pool, a worker that dies', () => {
  let dir: string;
  let store: Store;
  let pool: ReadPool;
  let w: World;
  const LOGS = 300;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-pool-'));
    const file = join(dir, 'lantern.db');
    store = await openSqliteStore({ file, writerThread: true });
    w = await makeWorld(store, 'pool');
    await store.writeLogs(logBatch(w.app, Array.from({ length: LOGS }, (_, i) => logEntry(w.app, T0 + i * 1000))));
    pool = startReadPool(file, 1, 200);
  });

  afterAll(async () => {
    await pool?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const kill = async () => {
    const [worker] = pool.workersForTest();
    const exited = once(worker!, 'exit');
    await worker!.terminate();
    await exited;
  };

  it('fails a stream whose worker died between two batches, then serves new reads on a new worker', async () => {
    const it = pool.streamLogs({ userId: w.user.id })[Symbol.asyncIterator]();
    let read = 0;
    expect((await it.next()).done).toBe(false); // the first batch is here; the worker waits to be asked for the next
    read += 1;
    await kill();
    const rest = (async () => {
      for (let next = await it.next(); !next.done; next = await it.next()) read += 1;
    })();
    await expect(rest).rejects.toMatchObject({ status: 503, code: 'unavailable' });
    expect(read).toBe(100); // the batch it had, and nothing after: no silent end

    expect(await collect(pool.streamLogs({ userId: w.user.id }))).toHaveLength(LOGS);
  });

  it('fails the serialised batches (a whole-set response) the same way', async () => {
    const source = pool.streamLogs({ userId: w.user.id }) as unknown as Record<symbol, () => AsyncIterable<string>>;
    const it = source[Symbol.for('lantern.jsonBatches')]!()[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    await kill();
    await expect(it.next()).rejects.toBeInstanceOf(AppError);
    expect(await collect(pool.streamLogs({ userId: w.user.id }))).toHaveLength(LOGS);
  });

  it("a dead worker's exit does not fail the calls of the worker that replaced it", async () => {
    const [old] = pool.workersForTest();
    // A worker's uncaught error comes first as 'error', then as 'exit': the read after the 'error' goes to a new worker.
    old!.emit('error', new Error('crashed'));
    const reading = collect(pool.streamLogs({ userId: w.user.id }));
    const exited = once(old!, 'exit');
    await old!.terminate();
    await exited;
    expect(await reading).toHaveLength(LOGS);
    expect(pool.workersForTest()).toHaveLength(1);
    expect(pool.workersForTest()[0]).not.toBe(old);
  });
});
