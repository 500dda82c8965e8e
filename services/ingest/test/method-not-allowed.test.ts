import { describe, expect, it } from '@jest/globals';
import type { ApiKeyResolver } from '@lantern/auth';
import { createMemoryBus } from '@lantern/bus';
import { createLogger } from '@lantern/logging';
import request from 'supertest';
import { createIngestApp } from '../src/index.js';

/**
 * The ingest service alone, as it runs behind nginx: nginx sends it every method of /ingest/logs but GET and HEAD
 * (gateway/nginx.conf), so its 405 must list the GET the query service serves there: the methods come from the
 * API's one route table, not from ingest's own routes.
 */
const keys: ApiKeyResolver = { resolve: async () => null };
const ingest = () => request(createIngestApp({ bus: createMemoryBus(), keys, logger: createLogger({ service: 'ingest-405-test', silent: true }) }));

describe('the ingest service alone: 405 with Allow from the shared route table', () => {
  it('answers DELETE /ingest/logs 405, its Allow naming the GET that another service serves on that path', async () => {
    const res = await ingest().delete('/ingest/logs');
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD, POST, OPTIONS');
    expect(res.body).toEqual({ error: { code: 'method_not_allowed', message: expect.any(String), details: [{ allow: ['GET', 'HEAD', 'POST', 'OPTIONS'] }] } });
  });

  it('answers GET /ingest/traces 405 with Allow: POST, OPTIONS', async () => {
    const res = await ingest().get('/ingest/traces');
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('POST, OPTIONS');
    expect(res.body.error.code).toBe('method_not_allowed');
  });

  it('answers OPTIONS 204 with the same Allow, and a served method still reaches its route (401 without a key)', async () => {
    const options = await ingest().options('/ingest/logs');
    expect(options.status).toBe(204);
    expect(options.headers['allow']).toBe('GET, HEAD, POST, OPTIONS');
    expect((await ingest().post('/ingest/traces').send({})).status).toBe(401);
  });

  it('still answers 404 for a path the API does not have, whatever the method', async () => {
    expect((await ingest().delete('/ingest/nothing')).status).toBe(404);
    expect((await ingest().get('/nothing')).body.error.code).toBe('not_found');
  });
});
