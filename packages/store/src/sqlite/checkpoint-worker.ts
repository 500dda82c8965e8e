import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { configure } from './schema.js';

/**
 * The checkpointer: copies committed pages from the WAL into the database file, on a thread of its own, so that
 * the writer thread only appends to the WAL (checkpoints took 15-20 % of its time when it ran them itself).
 * PASSIVE checkpoints never block the writer or readers; SQLite restarts the WAL from its beginning once a
 * checkpoint has caught up, and `journal_size_limit` truncates the file. The writer's own autocheckpoint, at a
 * far larger WAL, is the backstop should this thread fall behind.
 */

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file);
configure(db);
db.pragma('wal_autocheckpoint = 0');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const timer = setInterval(() => {
  try {
    checkpoint.run();
  } catch {
    // Busy or closing: the next turn tries again, and the writer's backstop bounds the WAL meanwhile.
  }
}, intervalMs);

parentPort!.on('message', (message: 'close') => {
  if (message !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort!.close();
});
