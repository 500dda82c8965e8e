#!/usr/bin/env node
// bench/logs-search/mongo-blocks: can MongoDB answer a log search over N logs within 100 ms from postings kept per
// (trigram, block of logs)? A design measurement for issue 12 item 6, not the store's code: it writes the postings
// straight (no logs, no indexer) and times the read a search would make, the worst case first: a text whose
// trigrams are all common but which no log holds, where every block's postings of every trigram must be read and
// intersected to prove that nothing matches.
//
// A block is B consecutive logs (their position in the block is their number); a posting is one document,
// `_id` "<trigram>|<block, 6 digits>" in a clustered collection, holding the positions of the block's logs whose
// (ASCII-lowercased) message has the trigram, encoded by the store's packages/store/src/log-postings.ts (a bitmap
// of 65,536 bits when they are many, else their sorted uint16 list). The levels are postings too. A search reads, per trigram of the text (at most 8, as
// log-search.ts picks them), the postings of every block newest first, intersects them per block, and counts the
// candidates (the logs it would then fetch and test).
//
//   node bench/logs-search/mongo-blocks.mjs --url mongodb://127.0.0.1:27018 --entries 10000000 --block 65536 --runs 10
// Prints the write figures, then p50/p99 per query, as JSON on stdout and a Markdown table on stderr.
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { MongoClient, Binary } from '../../packages/store/node_modules/mongodb/lib/index.js';
import { searchTrigrams } from '../../packages/store/dist/trigrams.js';
import { asciiLower } from '../../packages/store/dist/text.js';
import { BLOCK_LOGS, bitmapOf, blockPostings, encodePositions, intersect, levelKey } from '../../packages/store/dist/log-postings.js';
import { logGenerator } from './messages.mjs';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'mongodb://127.0.0.1:27018' },
    entries: { type: 'string', default: '10000000' },
    block: { type: 'string', default: String(BLOCK_LOGS) },
    runs: { type: 'string', default: '10' },
    keep: { type: 'boolean', default: false },
  },
});
const N = Number(values.entries);
const B = Number(values.block);
const runs = Number(values.runs);
if (B > BLOCK_LOGS) throw new Error(`--block must be at most ${BLOCK_LOGS}`);
const say = (m) => process.stderr.write(`[mongo-blocks] ${m}\n`);
const idOf = (gram, block) => `${gram}|${String(block).padStart(6, '0')}`;

const client = await MongoClient.connect(values.url);
const db = client.db(`lantern_blocks_${process.pid}`);
await db.createCollection('postings', { clusteredIndex: { key: { _id: 1 }, unique: true } });
const postings = db.collection('postings');

// ---- write: the postings of every block, as an indexer would make them ----
const gen = logGenerator(42);
const started = performance.now();
let docs = 0;
let bytes = 0;
const blocks = Math.ceil(N / B);
for (let block = 0; block < blocks; block++) {
  const size = Math.min(B, N - block * B);
  const logs = Array.from({ length: size }, () => ({ message: gen.message(), level: gen.level() }));
  const batch = [];
  for (const [gram, list] of blockPostings(logs)) {
    const b = encodePositions(list);
    batch.push({ _id: idOf(gram, block), b: new Binary(b) });
    bytes += b.length;
  }
  docs += batch.length;
  for (let i = 0; i < batch.length; i += 1000) await postings.insertMany(batch.slice(i, i + 1000), { ordered: false });
  if ((block + 1) % 16 === 0 || block === blocks - 1) say(`${Math.min(N, (block + 1) * B)} logs: ${docs} postings, ${(bytes / 1e6).toFixed(0)} MB, ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
const writeSeconds = (performance.now() - started) / 1000;
const stats = await db.command({ collStats: 'postings' });

// ---- read ----
/**
 * The candidates of a search, newest block first, stopping once `enough` are found: per trigram one cursor over its
 * postings (the _id range "<gram>|", newest block first), merged block by block; a block missing from any cursor has
 * no candidate. Returns the candidates found and the postings read.
 */
async function candidates(grams, enough) {
  const cursors = grams.map((gram) => postings.find({ _id: { $gt: `${gram}|`, $lt: `${gram}|~` } }, { sort: { _id: -1 }, batchSize: 512 }));
  const heads = await Promise.all(cursors.map((c) => c.next()));
  let found = 0;
  let read = heads.filter(Boolean).length;
  const blockOf = (doc) => Number(doc._id.slice(doc._id.lastIndexOf('|') + 1));
  while (heads.every(Boolean) && found < enough) {
    // The oldest of the heads: the newest block every cursor may still hold.
    const target = Math.min(...heads.map(blockOf));
    const together = heads.every((h) => blockOf(h) === target);
    if (together) {
      let acc;
      for (const h of heads) {
        const bits = bitmapOf(h.b.buffer);
        if (acc === undefined) acc = bits;
        else intersect(acc, bits);
      }
      for (let i = 0; i < acc.length; i++) {
        let w = acc[i];
        while (w) {
          w &= w - 1;
          found++;
        }
      }
    }
    // Past that block once intersected; else only the cursors still ahead of (newer than) it come down.
    for (let k = 0; k < heads.length; k++) {
      if (together || blockOf(heads[k]) > target) {
        heads[k] = await cursors[k].next();
        if (heads[k]) read++;
      }
    }
  }
  await Promise.all(cursors.map((c) => c.close()));
  return { found, read };
}

const QUERIES = [
  ['missing, common trigrams "served timeout"', 'served timeout', []],
  ['missing, every trigram in many logs "calling served"', 'calling served', []],
  ['missing, every trigram in many logs "timeout served"', 'timeout served', []],
  ['missing "qwzjxv"', 'qwzjxv', []],
  ['rare word "zebracorn"', 'zebracorn', []],
  ['0.1 % word "deadlock"', 'deadlock', []],
  ['common word "timeout"', 'timeout', []],
  ['"timeout" + level fatal', 'timeout', [levelKey('fatal')]],
  ['"deadlock" + level error', 'deadlock', [levelKey('error')]],
  ['"served timeout" + level error', 'served timeout', [levelKey('error')]],
];
const pct = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
const results = [];
for (const [name, text, extra] of QUERIES) {
  const grams = [...searchTrigrams(asciiLower(text), 8), ...extra];
  const times = [];
  let last;
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    // A page is 100 logs; the candidates of a block are all tested, so stop once 100 candidates are in hand.
    last = await candidates(grams, 100);
    times.push(performance.now() - t);
  }
  results.push({ name, grams: grams.length, candidates: last.found, postingsRead: last.read, p50: +pct(times, 0.5).toFixed(1), p99: +pct(times, 0.99).toFixed(1) });
}

const out = {
  date: new Date().toISOString(), entries: N, block: B, blocks, postings: docs, postingBytes: bytes,
  collectionMb: +(stats.size / 1e6).toFixed(0), storageMb: +(stats.storageSize / 1e6).toFixed(0), writeSeconds: +writeSeconds.toFixed(1), results,
};
console.log(JSON.stringify(out, null, 2));
process.stderr.write(`\n${N} logs in ${blocks} blocks of ${B}: ${docs} postings, ${(bytes / 1e6).toFixed(0)} MB of positions (${out.storageMb} MB on disk), written in ${out.writeSeconds} s\n\n`);
process.stderr.write('| query | trigrams | candidates found (stop at 100) | postings read | p50 / p99 ms |\n|---|---:|---:|---:|---:|\n');
for (const r of results) process.stderr.write(`| ${r.name} | ${r.grams} | ${r.candidates} | ${r.postingsRead} | ${r.p50} / ${r.p99} |\n`);
if (!values.keep) await db.dropDatabase();
await client.close();
