import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createEmbedded, describeInit, initAccount, type InitResult } from '@lantern/gateway';
import { createLogger } from '@lantern/logging';
import request from 'supertest';

describe('lantern init', () => {
  let dataDir: string;
  let result: InitResult;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'lantern-init-'));
    result = await initAccount({ dataDir, jwtSecret: undefined, jwtTtlSeconds: 3600 }, { email: 'Ops@Example.com', organization: 'Acme', project: 'Shop', application: 'checkout' });
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('creates a user, organization, project, application and a working API key in DATA_DIR', async () => {
    expect(result).toMatchObject({ email: 'ops@example.com', organizationId: 1, projectId: 1, applicationId: 1 });
    expect(result.apiKey).toMatch(/^lk_[A-Za-z0-9_-]{43}$/);
    expect(result.password.length).toBeGreaterThanOrEqual(12);
    const secret = await stat(join(dataDir, 'jwt-secret'));
    expect(secret.mode & 0o077).toBe(0);

    const embedded = await createEmbedded({
      dataDir, jwtSecret: undefined, jwtTtlSeconds: 3600, apiKeyCacheMs: 0, trustProxy: 0,
      rateLimit: { enabled: false, ingestPerMinute: 1, authPerMinute: 1 }, logger: createLogger({ service: 'test', silent: true }),
    });
    try {
      const http = request(embedded.app);
      const now = new Date().toISOString();
      await http.post('/ingest/logs').set('x-api-key', result.apiKey).send({ timestamp: now, logs: [{ level: 'info', message: 'hello', timestamp: now }] }).expect(200);
      // The printed JWT is signed with the secret the server reads from DATA_DIR.
      const logs = await http.get('/ingest/logs').set('Authorization', `Bearer ${result.token}`).expect(200);
      expect(logs.body.map((l: { message: string }) => l.message)).toEqual(['hello']);
      await http.post('/auth/login').send({ email: 'ops@example.com', password: result.password }).expect(200);
    } finally {
      await embedded.close();
    }
  });

  it('prints the credentials once with copy-paste curl commands for ingest and read', () => {
    const text = describeInit(result, 'http://localhost:8080');
    expect(text).toContain(result.apiKey);
    expect(text).toContain(`x-api-key: ${result.apiKey}`);
    expect(text).toContain('curl -s -X POST http://localhost:8080/ingest/traces');
    expect(text).toContain(`/logs/project?id=${result.projectId}`);
    expect(text).toContain(`Authorization: Bearer ${result.token}`);
  });

  it('refuses a second account with the same email', async () => {
    await expect(initAccount({ dataDir, jwtSecret: undefined, jwtTtlSeconds: 3600 }, { email: 'ops@example.com', organization: 'x', project: 'y', application: 'z' })).rejects.toMatchObject({ code: 'conflict' });
    expect((await readFile(join(dataDir, 'jwt-secret'), 'utf8')).trim().length).toBeGreaterThanOrEqual(32);
  });
});
