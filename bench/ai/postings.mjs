#!/usr/bin/env node
// bench/ai/postings: the cost on mongod of the AI search's postings, by layout, as the collection grows
// (packages/store/src/mongo/postings.ts). Documents of --kb KB drawn with Zipf's law from 30,000 words (as
// knowledge.mjs), cut into chunks of 600 words every 300 (about the default 800/400 tokens); per document:
//   --layout bucket   one entry per bucket of words it fills (--buckets, 256 in the store), `_id`
//                     [tenant, bucket, claim, document] in a clustered collection (the store's layout, with
//                     --keys claim; --keys document: [tenant, bucket, document, claim], the layout before);
//   --layout term     one entry per word and document, `_id` [tenant, word, document, claim], clustered;
//   --layout text     the chunks under mongod's text index on (tenantId, text), with no language (the layout
//                     before the postings; the chunks are inserted in every layout, as the store does).
// Prints the text indexed per second for every --every documents (the rate as the data grows), and then the read
// of one word's postings across the tenant (bucket and term layouts; p50 and max of 20 words of different ranks).
//
//   node bench/ai/postings.mjs --layout bucket [--buckets 256] [--keys claim|document] [--ids random|ordered]
//                              [--encoding u32|varint] [--docs 2000] [--kb 70] [--every 200] [--mongo URL]
// --ids: the document ids, random as the store's (randomUUID) or increasing; --encoding: the postings as uint32s
// (the store's) or varints with the chunk indexes as gaps (tried: no gain measured).
// Against scripts/infra/mongo.mjs's mongod unless --mongo; it uses a database of its own and drops it. Not a test.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../../scripts/infra/lib.mjs';
import { zipfWords } from './inputs.mjs';

const { values: opt } = parseArgs({
  options: {
    layout: { type: 'string', default: 'bucket' },
    buckets: { type: 'string', default: '256' },
    encoding: { type: 'string', default: 'u32' },
    ids: { type: 'string', default: 'random' },
    keys: { type: 'string', default: 'claim' },
    docs: { type: 'string', default: '2000' },
    kb: { type: 'string', default: '70' },
    every: { type: 'string', default: '200' },
    mongo: { type: 'string', default: 'mongodb://127.0.0.1:27018' },
  },
});
if (!['bucket', 'term', 'text'].includes(opt.layout)) throw new Error('--layout is bucket, term or text');
const { MongoClient, Binary } = createRequire(join(ROOT, 'packages/store/package.json'))('mongodb');
const { list: vocabulary, draw } = zipfWords(30_000);
const BUCKETS = Number(opt.buckets);
const TENANT = 'tenant-0000-0000-0000-000000000000';
// Ids as long as the store's (UUIDs): an entry's `_id` is most of its key. --ids random (as randomUUID, the
// store's document ids) or ordered (increasing, as documents arrive).
const docIds = [];
const docId = (d) => (docIds[d] ??= opt.ids === 'ordered' ? `00000000-0000-4000-8000-${String(d).padStart(12, '0')}` : randomUUID());
const CLAIM = '11111111-1111-4111-8111-111111111111';
// --keys document: `_id`s [.., document, claim] (the store's before), claim: [.., claim, document], the claim
// increasing as documents are processed (a time-ordered id), so that new entries land at the end of their range.
const claimOf = (d) => `${Date.now().toString(16).padStart(12, '0')}-${String(d).padStart(8, '0')}-4111-8111-111111111111`;
const chunkKey = (d, claim, index) => (opt.keys === 'claim' ? `${claim}:${index}` : `${docId(d)}:${claim}:${index}`);
const entryKey = (b, d, claim) => JSON.stringify(opt.keys === 'claim' ? [TENANT, b, claim, docId(d)] : [TENANT, b, docId(d), claim]);
const bucketOf = (term) => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % BUCKETS;
};
/** uint32s, or varints with each word's chunk indexes as gaps (--encoding varint). */
function packed(values) {
  if (opt.encoding === 'u32') return new Binary(Buffer.from(new Uint32Array(values).buffer));
  const out = [];
  const put = (v) => { while (v > 127) { out.push((v & 127) | 128); v >>>= 7; } out.push(v); };
  for (let i = 0; i < values.length;) {
    const n = values[i++];
    put(n);
    let last = 0;
    for (let k = 0; k < n; k++, i += 3) { put(values[i] - last); last = values[i]; put(values[i + 1]); put(values[i + 2]); }
  }
  return new Binary(Buffer.from(out));
}

const client = await MongoClient.connect(opt.mongo);
const db = client.db(`bench_postings_${opt.layout}_${Date.now()}`);
const chunks = db.collection('chunks');
await chunks.createIndex({ documentId: 1, index: 1 });
if (opt.layout === 'text') await chunks.createIndex({ tenantId: 1, text: 'text' }, { default_language: 'none', language_override: 'textLanguage' });
else await db.createCollection('postings', { clusteredIndex: { key: { _id: 1 }, unique: true } });
const postings = db.collection('postings');

/** A document's chunks and, per word, its chunks' (index, count, length). */
function documentOf(d) {
  const words = [];
  for (let size = 0; size < Number(opt.kb) * 1000; size += words.at(-1).length + 1) words.push(draw());
  const list = [];
  const byTerm = new Map();
  const claim = opt.keys === 'claim' ? claimOf(d) : CLAIM;
  for (let at = 0, index = 0; at < words.length; at += 300, index++) {
    const part = words.slice(at, at + 600);
    const text = part.join(' ');
    list.push({ _id: chunkKey(d, claim, index), documentId: docId(d), tenantId: TENANT, index, text, start: 0, end: text.length, claim });
    const counts = new Map();
    for (const w of part) counts.set(w, (counts.get(w) ?? 0) + 1);
    for (const [w, n] of counts) {
      if (!byTerm.has(w)) byTerm.set(w, []);
      byTerm.get(w).push(index, n, part.length);
    }
    if (at + 600 >= words.length) break;
  }
  return { bytes: words.join(' ').length, list, byTerm, claim };
}

function entriesOf(d, byTerm, claim) {
  if (opt.layout === 'term') return [...byTerm].map(([w, values]) => ({ _id: JSON.stringify([TENANT, w, docId(d), CLAIM]), p: packed(values) }));
  const byBucket = new Map();
  for (const w of byTerm.keys()) {
    const b = bucketOf(w);
    if (!byBucket.has(b)) byBucket.set(b, []);
    byBucket.get(b).push(w);
  }
  return [...byBucket].map(([b, words]) => ({
    _id: entryKey(b, d, claim), t: words.join(' '),
    p: packed(words.flatMap((w) => [byTerm.get(w).length / 3, ...byTerm.get(w)])),
  }));
}

let bytes = 0;
let entries = 0;
let began = performance.now();
let writing = 0;
for (let d = 0; d < Number(opt.docs); d++) {
  const doc = documentOf(d);
  const docs = opt.layout === 'text' ? [] : entriesOf(d, doc.byTerm, doc.claim);
  // Only the writes are timed (the words are drawn and counted outside).
  const t0 = performance.now();
  await chunks.insertMany(doc.list, { ordered: false });
  for (let i = 0; i < docs.length; i += 256) await postings.insertMany(docs.slice(i, i + 256), { ordered: false });
  writing += performance.now() - t0;
  bytes += doc.bytes;
  entries += docs.length;
  if ((d + 1) % Number(opt.every) === 0) {
    console.log(`${opt.layout}${opt.layout === 'bucket' ? ` ${BUCKETS}` : ''}: documents ${d + 1 - Number(opt.every) + 1}-${d + 1}: ${(bytes / 1e6 / (writing / 1000)).toFixed(2)} MB/s of text written, ${Math.round(entries / (writing / 1000))} entries/s (${((performance.now() - began) / 1000).toFixed(1)} s in all)`);
    bytes = 0;
    entries = 0;
    writing = 0;
    began = performance.now();
  }
}
if (opt.layout !== 'text') {
  const times = [];
  for (let q = 0; q < 20; q++) {
    const word = vocabulary[q * 500];
    const key = opt.layout === 'term' ? [TENANT, word] : [TENANT, bucketOf(word)];
    const prefix = `${JSON.stringify(key).slice(0, -1)},`;
    const t0 = performance.now();
    const rows = await postings.find({ _id: { $gte: prefix, $lt: `${prefix.slice(0, -1)}-` } }).toArray();
    if (opt.layout === 'bucket') rows.filter((r) => r.t.split(' ').includes(word));
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`reading one word's postings across the tenant: p50 ${times[10].toFixed(1)} ms, max ${times[19].toFixed(1)} ms`);
}
await db.dropDatabase();
await client.close();
