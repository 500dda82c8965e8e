import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import { createEmbedded, type Embedded } from '@lantern/gateway';
import { createLogger } from '@lantern/logging';
import { createMongoStore } from '@lantern/store/mongo';
import request from 'supertest';
import { HARNESS_SECRET } from './accounts-helpers.js';
import { createAiTenant, upload } from './ai-helpers.js';
import { bearer, createTenancy, fastHash, log, logBatch, span, traceBatch, type Tenancy } from './harness.js';
import { expectRateLimited, inOneWindow } from './limits-helpers.js';
import { sendLogs, sendTraces } from './telemetry-helpers.js';

// The server comes from scripts/infra/mongo.mjs (pnpm test:distributed starts it and sets this variable).
const url = process.env.LANTERN_TEST_MONGO_URL;
if (!url) throw new Error('LANTERN_TEST_MONGO_URL is not set: run `node scripts/infra/mongo.mjs start` and export the env of .infra/mongo/endpoint.json.');

/**
 * Two Lantern processes' worth of services (each its own app, bus, writer and limit middleware) on one MongoDB
 * database, as N ingest or AI processes behind a load balancer: the rate limits count in the store's shared
 * windows, so together they allow the limit once, not twice (issue 18, docs/deploy.md).
 */
describe('distributed: rate limits hold across processes sharing MongoDB', () => {
  // A database of its own on the test server (a throwaway mongod from scripts/infra/mongo.mjs).
  const database = `lantern_limits_${newId().replace(/-/g, '')}`;
  const instances: Array<{ embedded: Embedded; http: ReturnType<typeof request>; dataDir: string }> = [];
  let t: Tenancy;

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const dataDir = await mkdtemp(join(tmpdir(), 'lantern-limits-'));
      const embedded = await createEmbedded({
        dataDir,
        jwtSecret: HARNESS_SECRET,
        jwtTtlSeconds: 3600,
        rateLimit: { enabled: true, ingestPerMinute: 1000, authPerMinute: 6 },
        limits: { ingestPerApplicationPerMinute: 4, uploadsPerUserPerMinute: 3, maxApiKeysPerApplication: 20 },
        apiKeyCacheMs: 0,
        trustProxy: 0,
        logger: createLogger({ service: `limits-${i}`, silent: true }),
        adapters: { store: { kind: 'mongo', url, database }, bus: { kind: 'memory' }, blobs: { kind: 'fs' } },
        passwordHasher: fastHash,
      });
      instances.push({ embedded, http: request(embedded.app), dataDir });
    }
    t = await createTenancy(instances[0]!, 'lim-dist');
  });
  afterAll(async () => {
    for (const { embedded, dataDir } of instances) {
      await embedded.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses the request past the application\'s ingest limit, counting both processes together', async () => {
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    await inOneWindow();
    await sendTraces(a, t.apiKey, traceBatch([span()])).expect(200);
    await sendTraces(b, t.apiKey, traceBatch([span()])).expect(200);
    await sendLogs(a, t.apiKey, logBatch([log()])).expect(200);
    await sendLogs(b, t.apiKey, logBatch([log()])).expect(200);
    // Four in this minute, two through each process: each alone would allow four.
    expectRateLimited(await sendTraces(a, t.apiKey, traceBatch([span()])), 'this application');
    expectRateLimited(await sendTraces(b, t.apiKey, traceBatch([span()])), 'this application');
    // The window is in the shared database: a third process (a store of its own) counts on from there.
    const third = await createMongoStore({ url, database });
    try {
      const minute = Date.now() - (Date.now() % 60_000);
      expect(await third.countHit(`ingest-app:${t.applicationId}`, minute, 60_000)).toBe(7);
    } finally {
      await third.close();
    }
  });

  it('refuses a user\'s upload past the limit, counting both processes together', async () => {
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    await inOneWindow();
    const tenantId = await createAiTenant(a, t.token, t.organizationId, 'dist');
    await upload(a, t.token, tenantId, 'one\n').expect(200);
    await upload(b, t.token, tenantId, 'two\n').expect(200);
    await upload(a, t.token, tenantId, 'three\n').expect(200);
    expectRateLimited(await upload(b, t.token, tenantId, 'four\n'), 'your uploads');
  });

  it('refuses logins from one address past the auth limit, counting both accounts processes together', async () => {
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    await inOneWindow();
    // Six a minute in all. Counted per process, seven attempts alternating between two processes would never
    // reach it (four and three); counted together, the sixth or seventh (after beforeAll's register) is refused.
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await (i % 2 ? b : a).http.post('/auth/login').send({ email: t.email, password: 'wrong password' });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses).toContain(429);
    expectRateLimited(last!, 'your address');
  });

  it('creates exactly 20 keys from 30 parallel POSTs spread over both processes (cap 20), and 429 too_many_keys for the others', async () => {
    const app = await instances[0]!.http.post('/applications').set(bearer(t.token)).send({ name: 'key race', projectId: t.projectId }).expect(201);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      instances[i % 2]!.http.post(`/applications/${app.body.id}/api-keys`).set(bearer(t.token)).send({ name: `k${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    for (const r of results.filter((x) => x.status !== 201)) expect([r.status, r.body.error?.code]).toEqual([429, 'too_many_keys']);
    const listed = (await instances[1]!.http.get(`/applications/${app.body.id}/api-keys`).set(bearer(t.token)).expect(200)).body as Array<{ revokedAt: string | null }>;
    expect(listed.filter((k) => k.revokedAt === null)).toHaveLength(20);
  });
});
