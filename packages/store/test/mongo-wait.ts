import type { Db } from 'mongodb';

/**
 * Waits (bounded) until the MongoDB store's log indexer has set `grams` on every log of `db`
 * (src/mongo/log-indexer.ts), then a moment for its last look (which finds nothing), so that a test capturing the
 * store's commands sees only its own. Returns how many logs were still pending.
 */
export async function waitIndexed(db: Db): Promise<number> {
  let pending = await db.collection('logs').countDocuments({ gramsPending: true });
  for (let turns = 0; pending > 0 && turns < 400; turns++) {
    await new Promise((done) => setTimeout(done, 25));
    pending = await db.collection('logs').countDocuments({ gramsPending: true });
  }
  await new Promise((done) => setTimeout(done, 100));
  return pending;
}
