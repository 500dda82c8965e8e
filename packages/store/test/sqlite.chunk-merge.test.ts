import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { newId, toIso } from '@lantern/domain';
import { openSqliteStore } from '@lantern/store';
import { makeWorld } from '../src/contract/fixtures.js';
import { chunkStatements } from '../src/sqlite/chunk-sweep.js';

/**
 * The chunks' FTS5 index is merged by its writer a step at a time (chunk-sweep.ts), FTS5's own automatic merges
 * being off (migration 12): they ran inside whichever chunk's insert filled a level, with a span commit waiting
 * behind it. Written one chunk a transaction (as the writer thread does when spans keep arriving), the index stays
 * at a few segments; FTS5 left alone with automerge off would keep up to 15 a level before its crisis merge.
 */
describe('sqlite chunks index: merged in steps by its writer', () => {
  let dir: string;
  let file: string;
  let documentId: string;
  let claim: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-chunk-merge-'));
    file = join(dir, 'lantern.db');
    const store = await openSqliteStore({ file });
    const w = await makeWorld(store, 'merge');
    const tenant = await store.createTenant({ name: 'Docs', organizationId: w.org.id });
    documentId = newId();
    await store.createDocument({ id: documentId, tenantId: tenant.id, filename: 'a.txt', contentType: 'text/plain', size: 1, sha256: 'f'.repeat(64),
      status: 'stored', createdAt: toIso(Date.now()), objectKey: `tenants/${tenant.id}/documents/${documentId}` });
    claim = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!.claim;
    await store.close();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A varint of SQLite's (big-endian, 7 bits a byte, the ninth byte whole) at `at`: its value and the next offset. */
  const varint = (b: Buffer, at: number): [number, number] => {
    let v = 0;
    for (let i = 0; i < 9; i++) {
      const c = b[at + i]!;
      if (i === 8) return [v * 256 + c, at + 9];
      v = v * 128 + (c & 0x7f);
      if (!(c & 0x80)) return [v, at + i + 1];
    }
    return [v, at + 9];
  };
  /** The index's segments: its structure record (row 10 of chunks_fts_data) holds, after a 4-byte cookie, the levels and the segments. */
  const segmentsOf = (db: Database.Database) => {
    const b = db.prepare('SELECT block FROM chunks_fts_data WHERE id = 10').pluck().get() as Buffer;
    return varint(b, varint(b, 4)[1])[0];
  };

  it('keeps FTS5\'s automatic merges off and the index at a few segments, written one chunk a transaction', () => {
    const db = new Database(file);
    try {
      expect(db.prepare("SELECT v FROM chunks_fts_config WHERE k = 'automerge'").pluck().get()).toBe(0);
      const statements = chunkStatements(db);
      const insert = db.transaction(statements.insert);
      for (let i = 0; i < 40; i++) {
        const text = `chunk${i} of the runbook`;
        expect(insert(documentId, claim, [{ index: i, text, start: i * 100, end: i * 100 + text.length }])).toBe(1);
      }
      // A merge step after every 8th chunk: the 40th leaves the index merged. Without the steps, 10 segments here.
      expect(segmentsOf(db)).toBeLessThanOrEqual(3);
      expect(db.prepare('SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?').pluck().get('runbook')).toBe(40);
      const remove = db.transaction(statements.remove);
      for (let i = 0; i < 40; i++) expect(remove(documentId, { only: claim }, 1)).toBe(1);
      expect(segmentsOf(db)).toBeLessThanOrEqual(3);
      expect(db.prepare('SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?').pluck().get('runbook')).toBe(0);
    } finally {
      db.close();
    }
  });

  it('leaves its steps for later while a span commit waits, and takes them up in the next call that is let run', () => {
    const db = new Database(file);
    try {
      const statements = chunkStatements(db);
      const insert = db.transaction(statements.insert);
      const before = segmentsOf(db);
      const spansWait = () => true;
      // A commit waits all along: each call writes its one chunk and no merge step.
      for (let i = 100; i < 140; i++) expect(insert(documentId, claim, [{ index: i, text: `chunk${i} of the playbook`, start: 0, end: 10 }], spansWait)).toBe(1);
      expect(segmentsOf(db)).toBeGreaterThanOrEqual(before + 10);
      // Nothing waits: the steps owed run at the end of this call.
      expect(insert(documentId, claim, [{ index: 140, text: 'chunk140 of the playbook', start: 0, end: 10 }], () => false)).toBe(1);
      expect(segmentsOf(db)).toBeLessThanOrEqual(3);
      expect(db.prepare('SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?').pluck().get('playbook')).toBe(41);
    } finally {
      db.close();
    }
  });
});
