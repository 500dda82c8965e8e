#!/usr/bin/env node
// bench/ai/nearest: the cost of semantic search's brute-force pass (packages/store nearestChunks on SQLite): one
// tenant's chunks with random unit vectors, stored through the processing store as the worker stores them, then
// nearest-chunk searches of random query vectors, timed from the caller (the read worker's round trip included).
//
//   pnpm bench:ai-nearest                           10,000 chunks of 1,536 and of 256 dimensions
//   options: --chunks 10000 --dims 1536,256 --searches 12 --read-workers 2 (0: on the calling thread)
//
// Prints one JSON line per size: the median, fastest and slowest of the searches in ms, and the vectors' MB.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteStore } from '../../packages/store/dist/index.js';

const { values } = parseArgs({ options: { chunks: { type: 'string', default: '10000' }, dims: { type: 'string', default: '1536,256' }, searches: { type: 'string', default: '12' }, 'read-workers': { type: 'string', default: '2' } } });
const PER_DOCUMENT = 500;

function unit(dims) {
  const v = new Float32Array(dims);
  let sum = 0;
  for (let i = 0; i < dims; i++) sum += (v[i] = Math.random() - 0.5) ** 2;
  const norm = Math.sqrt(sum);
  for (let i = 0; i < dims; i++) v[i] /= norm;
  return v;
}

async function measure(chunks, dims, searches, readWorkers) {
  const dir = mkdtempSync(join(tmpdir(), 'lantern-bench-nearest-'));
  const store = await openSqliteStore({ file: join(dir, 'lantern.db'), readWorkers });
  try {
    const user = await store.createUser({ email: 'bench@example.test', name: 'Bench', passwordHash: 'h' });
    const org = await store.createOrganization({ name: 'Bench', ownerId: user.id });
    const tenant = await store.createTenant({ name: 'Bench', organizationId: org.id });
    for (let d = 0; d * PER_DOCUMENT < chunks; d++) {
      const id = randomUUID();
      await store.createDocument({ id, tenantId: tenant.id, filename: `d${d}.txt`, contentType: 'text/plain', size: 1, sha256: 'a'.repeat(64), status: 'stored', createdAt: new Date(d).toISOString(), objectKey: `bench/${id}` });
      const taken = await store.claimDocument({ leaseMs: 600_000, maxAttempts: 3 });
      const count = Math.min(PER_DOCUMENT, chunks - d * PER_DOCUMENT);
      await store.completeDocument(id, taken.claim, { characters: 1, settings: { chunkTokens: 800, chunkOverlap: 400, embeddingModel: 'bench' },
        chunks: Array.from({ length: count }, (_, i) => ({ index: i, text: `chunk ${i} of document ${d}, a few words of text`, start: 0, end: 40, vector: unit(dims) })) });
    }
    const times = [];
    for (let i = 0; i < searches; i++) {
      const started = process.hrtime.bigint();
      const hits = await store.nearestChunks({ userId: user.id, tenantId: tenant.id, vector: unit(dims), limit: 40 });
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (hits.length !== Math.min(40, chunks)) throw new Error(`expected ${Math.min(40, chunks)} hits, got ${hits.length}`);
    }
    times.sort((a, b) => a - b);
    return { chunks, dims, readWorkers, vectorsMB: +((chunks * dims * 4) / 1e6).toFixed(1), medianMs: +times[Math.floor(times.length / 2)].toFixed(1), fastestMs: +times[0].toFixed(1), slowestMs: +times.at(-1).toFixed(1) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const dims of values.dims.split(',').map(Number)) {
  console.log(JSON.stringify(await measure(Number(values.chunks), dims, Number(values.searches), Number(values['read-workers']))));
}
