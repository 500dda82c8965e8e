import { afterAll, afterEach } from '@jest/globals';
import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import { newId } from '@lantern/domain';
import type { Store } from '@lantern/store';
import { createMongoStore } from '@lantern/store/mongo';
import type { MongoStoreOptions } from '@lantern/store/mongo';

/** A store of a test, in its own database, and that database's handle. */
export interface TestStore {
  store: Store;
  database: string;
  db: Db;
}

/**
 * The MongoDB stores of a test file: each in a database of its own (a new one unless named), closed and dropped after
 * each test. The server comes from scripts/infra/mongo.mjs (`pnpm test:distributed` starts it and sets
 * LANTERN_TEST_MONGO_URL). Call once, at the top of the file: it registers the file's afterEach and afterAll.
 */
export function mongoStores(): { url: string; admin: MongoClient; openStore(options?: Partial<MongoStoreOptions>): Promise<TestStore> } {
  const url = process.env.LANTERN_TEST_MONGO_URL;
  if (!url) throw new Error('LANTERN_TEST_MONGO_URL is not set: run `pnpm test:distributed` (it starts mongod).');
  const admin = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  const opened: { store: Store; database: string }[] = [];
  afterEach(async () => {
    const done = opened.splice(0);
    await Promise.all(done.map(({ store }) => store.close()));
    for (const database of new Set(done.map((d) => d.database))) await admin.db(database).dropDatabase();
  });
  afterAll(() => admin.close());
  return {
    url,
    admin,
    async openStore(options = {}) {
      const database = options.database ?? `lantern_test_${newId().replace(/-/g, '')}`;
      const store = await createMongoStore({ url, ...options, database });
      opened.push({ store, database });
      return { store, database, db: admin.db(database) };
    },
  };
}
