import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@lantern/config';
import { newId } from '@lantern/domain';
import { createLogger } from '@lantern/logging';
import request from 'supertest';
import { createServiceProcess, type ServiceProcess } from '../src/services.js';

/**
 * Sign-out across processes: accounts and query as two service processes (their own token services and version
 * caches) on one MongoDB. A token signed out through accounts is refused by query within the documented bound
 * (5 s, the version cache), and at once by accounts itself.
 */
const url = process.env.LANTERN_TEST_MONGO_URL;
if (!url) throw new Error('LANTERN_TEST_MONGO_URL is not set: run `node scripts/infra/mongo.mjs start` (pnpm test:distributed does).');

// A database of its own (the server is a throwaway one of the test run's).
const database = `lantern_test_${newId().replace(/-/g, '')}`;
const logger = createLogger({ service: 'test', silent: true });

describe('token revocation across service processes', () => {
  let accounts: ServiceProcess;
  let query: ServiceProcess;
  beforeAll(async () => {
    const config = loadConfig({
      LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: url, LANTERN_MONGO_DATABASE: database,
      JWT_SECRET: 'token-revocation-test-secret-0123456789', RATE_LIMIT_ENABLED: 'false',
    });
    accounts = await createServiceProcess('accounts', config, logger);
    query = await createServiceProcess('query', config, logger);
  });
  afterAll(async () => {
    await accounts?.close();
    await query?.close();
  });

  it('query refuses a signed-out token within 5 s; accounts at once', async () => {
    const a = request(accounts.app);
    const q = request(query.app);
    const email = `revoke-${newId().slice(0, 8)}@example.com`;
    const { token } = (await a.post('/auth/register').send({ email, password: 'correct horse battery' }).expect(201)).body as { token: string };
    const auth = { Authorization: `Bearer ${token}` };
    await q.get('/ingest/logs').set(auth).expect(200);
    await a.post('/auth/logout').set(auth).expect(204);
    const signedOut = Date.now();
    await a.get('/auth/me').set(auth).expect(401);
    let refusedAfter: number | undefined;
    while (Date.now() - signedOut < 7000) {
      if ((await q.get('/ingest/logs').set(auth)).status === 401) {
        refusedAfter = Date.now() - signedOut;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The bound is the 5 s cache; a little more for the loop's own requests on a busy machine.
    expect(refusedAfter).toBeDefined();
    expect(refusedAfter!).toBeLessThanOrEqual(5500);
    const fresh = (await a.post('/auth/login').send({ email, password: 'correct horse battery' }).expect(200)).body.token as string;
    await q.get('/ingest/logs').set({ Authorization: `Bearer ${fresh}` }).expect(200);
  });
});
