#!/usr/bin/env node
// bench/ai/fts-merge: the time of each FTS5 insert into the chunks' index, one chunk a transaction (as the writer
// thread commits when span batches keep arriving), with FTS5's automatic merges (`--mode auto`) or with them off
// and a merge step of --pages pages after every --every chunks (`--mode steps`: packages/store chunk-sweep.ts).
// --chunks chunks of 600 words (bench/ai/inputs.mjs, a 2,000-word vocabulary: a 10 MB PDF makes about 13,000).
//
//   node bench/ai/fts-merge.mjs --mode auto|steps [--chunks 13000] [--every 8] [--pages 64]
// In memory, one thread: what it measures is the stall of one commit, not a machine's load. Not a test.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../../scripts/infra/lib.mjs';
import { words } from './inputs.mjs';

const { values: opt } = parseArgs({
  options: { mode: { type: 'string', default: 'auto' }, chunks: { type: 'string', default: '13000' }, every: { type: 'string', default: '8' }, pages: { type: 'string', default: '64' } },
});
const Database = createRequire(join(ROOT, 'packages/store/package.json'))('better-sqlite3');
const db = new Database(':memory:');
db.exec(`CREATE TABLE chunks (id INTEGER PRIMARY KEY, tenant TEXT, text TEXT);
CREATE VIRTUAL TABLE chunks_fts USING fts5(tenant, text, content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER chunks_indexed AFTER INSERT ON chunks BEGIN INSERT INTO chunks_fts (rowid, tenant, text) VALUES (new.id, new.tenant, new.text); END;`);
if (opt.mode === 'steps') db.exec(`INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('automerge', 0)`);
const insert = db.prepare('INSERT INTO chunks (tenant, text) VALUES (?, ?)');
const merge = db.prepare(`INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('merge', ${Number(opt.pages)})`);
const inserts = [];
const steps = [];
for (let i = 0; i < Number(opt.chunks); i++) {
  const text = words(600);
  const t0 = performance.now();
  db.transaction(() => insert.run('tenant', text))();
  inserts.push(performance.now() - t0);
  if (opt.mode === 'steps' && (i + 1) % Number(opt.every) === 0) {
    const t1 = performance.now();
    db.transaction(() => merge.run())();
    steps.push(performance.now() - t1);
  }
}
const summary = (list) => {
  const s = [...list].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(s.length * q))].toFixed(2);
  return `p50 ${at(0.5)} p99 ${at(0.99)} p99.9 ${at(0.999)} max ${s.at(-1).toFixed(1)} ms, ${(list.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s in all`;
};
console.log(`${opt.mode}: inserts ${summary(inserts)}`);
if (steps.length > 0) console.log(`${opt.mode}: merge steps ${summary(steps)}`);
