#!/usr/bin/env node
// bench/logs-search/mongo-blocks: can MongoDB answer a log search over N logs within 100 ms from postings kept per
// (trigram, block of logs)? A design measurement for issue 12 item 6, not the store's code: it writes the postings
// straight (no logs, no indexer) and times the read a search would make, the worst case first: a text whose
// trigrams are all common but which no log holds, where every block's postings of every trigram must be read and
// intersected to prove that nothing matches.
//
// A block is B consecutive logs (their position in the block is their number); a posting is one document,
// `_id` "<trigram>|<block, 6 digits>" in a clustered collection, holding the positions of the block's logs whose
// (ASCII-lowercased) message has the trigram: a bitmap of B bits when they are many, else their sorted uint16 list.
// The levels are postings too ("\u0001<level>"). A search reads, per trigram of the text (at most 8, as
// log-search.ts picks them), the postings of every block newest first, intersects them per block, and counts the
// candidates (the logs it would then fetch and test).
//
//   node bench/logs-search/mongo-blocks.mjs --url mongodb://127.0.0.1:27018 --entries 10000000 --block 65536 --runs 10
// Prints the write figures, then p50/p99 per query, as JSON on stdout and a Markdown table on stderr.
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { MongoClient, Binary } from '../../packages/store/node_modules/mongodb/lib/index.js';
import { searchTrigrams, trigramsOf } from '../../packages/store/dist/trigrams.js';
import { asciiLower } from '../../packages/store/dist/text.js';
import { logGenerator } from './messages.mjs';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'mongodb://127.0.0.1:27018' },
    entries: { type: 'string', default: '10000000' },
    block: { type: 'string', default: '65536' },
    runs: { type: 'string', default: '10' },
    keep: { type: 'boolean', default: false },
  },
});
const N = Number(values.entries);
const B = Number(values.block);
const runs = Number(values.runs);
if (B > 65536 || B % 32 !== 0) throw new Error('--block must be a multiple of 32, at most 65,536');
const say = (m) => process.stderr.write(`[mongo-blocks] ${m}\n`);
const BITMAP_BYTES = B / 8;
/** A list of uint16 takes 2 bytes a log: past BITMAP_BYTES / 2 logs the bitmap is smaller. */
const DENSE = BITMAP_BYTES / 2;
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
  const lists = new Map();
  const size = Math.min(B, N - block * B);
  for (let pos = 0; pos < size; pos++) {
    const grams = trigramsOf(asciiLower(gen.message()));
    grams.push(`\u0001${gen.level()}`);
    for (const gram of grams) {
      let list = lists.get(gram);
      if (list === undefined) lists.set(gram, (list = []));
      list.push(pos);
    }
  }
  const batch = [];
  for (const [gram, list] of lists) {
    let b;
    if (list.length >= DENSE) {
      const bits = new Uint32Array(B / 32);
      for (const pos of list) bits[pos >>> 5] |= 1 << (pos & 31);
      b = Buffer.from(bits.buffer);
    } else {
      b = Buffer.from(Uint16Array.from(list).buffer);
    }
    batch.push({ _id: idOf(gram, block), n: list.length, b: new Binary(b) });
    bytes += b.length;
  }
  docs += batch.length;
  for (let i = 0; i < batch.length; i += 1000) await postings.insertMany(batch.slice(i, i + 1000), { ordered: false });
  if ((block + 1) % 16 === 0 || block === blocks - 1) say(`${Math.min(N, (block + 1) * B)} logs: ${docs} postings, ${(bytes / 1e6).toFixed(0)} MB, ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
const writeSeconds = (performance.now() - started) / 1000;
const stats = await db.command({ collStats: 'postings' });

// ---- read ----
/** A posting's positions as a bitmap of B bits. */
function bitmapOf(doc) {
  const buf = doc.b.buffer;
  if (doc.n >= DENSE) return new Uint32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const bits = new Uint32Array(B / 32);
  const list = new Uint16Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  for (const pos of list) bits[pos >>> 5] |= 1 << (pos & 31);
  return bits;
}

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
        const bits = bitmapOf(h);
        if (acc === undefined) acc = bits;
        else for (let i = 0; i < acc.length; i++) acc[i] &= bits[i];
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
  ['"timeout" + level fatal', 'timeout', ['\u0001fatal']],
  ['"deadlock" + level error', 'deadlock', ['\u0001error']],
  ['"served timeout" + level error', 'served timeout', ['\u0001error']],
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
