import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Binary, MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import { newId, toIso } from '@lantern/domain';
import type { ChunkInput, Store } from '@lantern/store';
import { createMongoStore } from '@lantern/store/mongo';
import { T0, makeWorld } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';
import { BUCKETS, POSTINGS_LAYOUT, bucketOf, chunkId, entryId, entryOwner, termPostings } from '../src/mongo/postings.js';
import { UNRECORDED_SETTINGS } from '../src/processing.js';

/*
 * The postings of the chunks on a real mongod (packages/store/src/mongo/postings.ts): written with a claim's chunks,
 * one entry per bucket of words and document, and gone with them whichever way they go (a new claim's completion, a reprocess, a
 * failure, a completion that lost its claim, a delete), lists included, so that nothing of a document is left to
 * search or to fill the disk.
 */

const urlEnv = process.env.LANTERN_TEST_MONGO_URL;
if (!urlEnv) throw new Error('LANTERN_TEST_MONGO_URL is not set: run `pnpm test:distributed` (it starts mongod).');
const database = `lantern_postings_${newId().replace(/-/g, '')}`;
const admin = new MongoClient(urlEnv, { serverSelectionTimeoutMS: 10_000 });
const db: Db = admin.db(database);
let store: Store;
let w: World;
let tenantId: string;

beforeAll(async () => {
  store = await createMongoStore({ url: urlEnv, database });
  w = await makeWorld(store, 'postings');
  tenantId = (await store.createTenant({ name: 'Docs', organizationId: w.org.id })).id;
});

afterAll(async () => {
  await store?.close();
  await db.dropDatabase();
  await admin.close();
});

const chunksOf = (texts: string[]): ChunkInput[] => {
  let at = 0;
  return texts.map((text, index) => ({ index, text, start: at, end: (at += text.length) }));
};

/** A stored document of the tenant, claimed: its id and claim. */
async function claimed(): Promise<{ id: string; claim: string }> {
  const id = newId();
  await store.createDocument({
    id, tenantId, filename: `${id}.txt`, contentType: 'text/plain', size: 10, sha256: 'c'.repeat(64),
    status: 'stored', createdAt: toIso(T0), objectKey: `tenants/${tenantId}/documents/${id}`,
  });
  const claim = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
  expect(claim.document.id).toBe(id);
  return { id, claim: claim.claim };
}

/** The postings and lists stored of a document: per claim, the words of its entries. */
async function postingsOf(id: string): Promise<{ terms: Record<string, string[]>; lists: number }> {
  const terms: Record<string, string[]> = {};
  for (const p of await db.collection<{ _id: string; t: string }>('postings').find({}).toArray()) {
    const owner = entryOwner(p._id);
    if (owner.documentId !== id) continue;
    (terms[owner.claim] ??= []).push(...p.t.split(' '));
  }
  for (const list of Object.values(terms)) list.sort();
  const lists = await db.collection('postingLists').countDocuments({ _id: { $regex: `^\\["${id}",` } as never });
  return { terms, lists };
}

const complete = (id: string, claim: string, texts: string[]) =>
  store.completeDocument(id, claim, { characters: texts.join('').length, chunks: chunksOf(texts) });

describe('mongo store: postings', () => {
  it('writes each word\'s postings in its bucket\'s entry, with each chunk\'s count and length, and the words counted', async () => {
    const { id, claim } = await claimed();
    expect(await complete(id, claim, ['Breaker breaker trips', 'the breaker resets'])).toBe(true);
    expect(await postingsOf(id)).toEqual({ terms: { [claim]: ['breaker', 'resets', 'the', 'trips'] }, lists: 1 });
    const entry = await db.collection<{ _id: string; t: string; p: never }>('postings').findOne({ _id: entryId(tenantId, bucketOf('breaker'), id, claim) });
    // Chunk 0 holds it twice in 3 words, chunk 1 once in 3.
    expect([...termPostings(entry!, 'breaker')!]).toEqual([0, 2, 3, 1, 1, 3]);
    expect(termPostings(entry!, 'absent')).toBeUndefined();
    expect(await db.collection('documents').findOne({ _id: id as never })).toMatchObject({ chunkWords: 6, chunkCount: 2, postingsLayout: POSTINGS_LAYOUT });
  });

  it('keys chunks and entries by a time-ordered claim, so that later documents\' land after earlier ones\'', async () => {
    const first = await claimed();
    await complete(first.id, first.claim, ['numbat']);
    // Claims of one millisecond are in no order: the next one a few milliseconds later.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await claimed();
    await complete(second.id, second.claim, ['numbat']);
    expect(second.claim > first.claim).toBe(true);
    expect(await db.collection('chunks').countDocuments({ _id: { $in: [chunkId(first.claim, 0), chunkId(second.claim, 0)] } } as never)).toBe(2);
    const entries = await db.collection('postings').find({ _id: { $regex: `^\\["${tenantId}",${bucketOf('numbat')},` } } as never).sort({ _id: 1 }).toArray();
    expect(entries.map((e) => entryOwner(e._id as unknown as string))).toEqual([{ documentId: first.id, claim: first.claim }, { documentId: second.id, claim: second.claim }]);
  });

  it('searches only documents of the current layout, makes the others again, and removes their entries by their own layout', async () => {
    const { id, claim } = await claimed();
    await complete(id, claim, ['quokka sightings logged']);
    const search = () => store.searchChunks({ userId: w.user.id, tenantId, terms: ['quokka'], limit: 5 });
    expect(await search()).toMatchObject([{ documentId: id }]);
    // As a document of the first layout (1,024 buckets, the document first in the key) is, and one indexed by
    // mongod's text index (no layout) before the postings.
    const old = 'a1a1a1a1-0000-4000-8000-000000000000';
    // Its entries: one in a bucket of layout 1 only (700), one in the range a search of 'quokka' reads now.
    const oldIds = [700, bucketOf('quokka')].map((bucket) => entryId(tenantId, bucket, id, old, 1));
    const quokka = new Binary(Buffer.from(new Uint32Array([1, 0, 9, 9]).buffer));
    await db.collection('postings').insertMany(oldIds.map((_id) => ({ _id, t: 'quokka', p: quokka })) as never);
    await db.collection('postingLists').insertOne({ _id: JSON.stringify([id, old]), tenantId, buckets: [700, bucketOf('quokka')] } as never);
    // Read with the others, it belongs to no searchable document (its `_id` read as layout 2's): one answer, the current chunk's.
    expect(await search()).toMatchObject([{ documentId: id, index: 0 }]);
    expect(await search()).toHaveLength(1);
    for (const earlier of [{ $set: { postingsLayout: 1 } }, { $unset: { postingsLayout: '' } }]) {
      await db.collection('documents').updateOne({ _id: id as never }, earlier);
      expect(await search()).toEqual([]);
      expect(await store.requeueOutdated(UNRECORDED_SETTINGS)).toBe(1);
      expect(await store.getDocument(id, w.user.id)).toMatchObject({ status: 'stored' });
      const again = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
      expect(again.document.id).toBe(id);
      await complete(id, again.claim, ['quokka sightings logged']);
      expect(await search()).toMatchObject([{ documentId: id }]);
      expect(await store.requeueOutdated(UNRECORDED_SETTINGS)).toBe(0);
      expect(await postingsOf(id)).toEqual({ terms: { [again.claim]: ['logged', 'quokka', 'sightings'] }, lists: 1 });
    }
    expect(await db.collection('postings').countDocuments({ _id: { $in: oldIds } } as never)).toBe(0);
  });

  it('keeps only the current claim\'s postings: a reprocess, a new completion and a failure take the others', async () => {
    const first = await claimed();
    await complete(first.id, first.claim, ['alpha beta']);
    await store.reprocessDocument(first.id, w.user.id);
    expect(await postingsOf(first.id)).toEqual({ terms: {}, lists: 0 });
    const second = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
    expect(second.document.id).toBe(first.id);
    await complete(first.id, second.claim, ['gamma']);
    expect(await postingsOf(first.id)).toEqual({ terms: { [second.claim]: ['gamma'] }, lists: 1 });
    // A claim that lost the document (reprocessed meanwhile) writes none, and leaves the new claim's alone.
    await store.reprocessDocument(first.id, w.user.id);
    const third = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
    await store.reprocessDocument(first.id, w.user.id);
    const fourth = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
    expect(await complete(first.id, third.claim, ['delta'])).toBe(false);
    expect(await postingsOf(first.id)).toEqual({ terms: {}, lists: 0 });
    expect(await complete(first.id, fourth.claim, ['epsilon'])).toBe(true);
    expect(await postingsOf(first.id)).toEqual({ terms: { [fourth.claim]: ['epsilon'] }, lists: 1 });
    const failing = await claimed();
    await complete(failing.id, failing.claim, ['zeta']);
    await store.reprocessDocument(failing.id, w.user.id);
    const again = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
    expect(await store.failDocument(failing.id, again.claim, { code: 'unreadable', message: 'cut off' })).toBe(true);
    expect(await postingsOf(failing.id)).toEqual({ terms: {}, lists: 0 });
  });

  it('removes a deleted document\'s postings and lists, in batches, before its record', async () => {
    const { id, claim } = await claimed();
    // Words in every bucket: more entries than a write and a removal batch (128).
    const words = Array.from({ length: 6200 }, (_, i) => `w${i}`);
    await complete(id, claim, [words.slice(0, 3000).join(' '), words.slice(3000).join(' ')]);
    expect((await postingsOf(id)).terms[claim]).toHaveLength(6200);
    expect(await db.collection('postings').countDocuments({ _id: { $regex: `,"${id}"]$` } } as never)).toBe(BUCKETS);
    // A word of a full bucket is found among the others.
    expect(await store.searchChunks({ userId: w.user.id, tenantId, terms: ['w4321'], limit: 5 })).toMatchObject([{ documentId: id, index: 1 }]);
    expect(await store.withdrawDocument(id, 60_000)).toBe(true);
    expect(await postingsOf(id)).toEqual({ terms: {}, lists: 0 });
    expect(await store.removeDocument(id)).toBe(true);
    expect(await store.searchChunks({ userId: w.user.id, tenantId, terms: ['w1'], limit: 5 })).toEqual([]);
  });
});
