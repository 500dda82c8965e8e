import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@lantern/logging';
import type { Response } from 'supertest';
import { bearer, span, startLantern, traceBatch, type Lantern } from './harness.js';
import { waitFor } from './process-helpers.js';

const PASSWORD = 'Correct-Horse-9f2c-battery';
const WRONG_PASSWORD = 'Wrong-Pony-77aa-staple';
const SENTENCE = 'The heron counts seventeen lanterns at dusk on the quay.';

/**
 * The request log, read from the logger's stream: one JSON line per request with id, method, route pattern,
 * status and duration, and none of the secrets or content the requests carried.
 */
describe('request log', () => {
  let l: Lantern;
  const output: string[] = [];
  const lines = () =>
    output
      .join('')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const requestLines = () => lines().filter((line) => line['message'] === 'request');
  /** The one request line of a response, once written (the log is written when the response closes). */
  const lineOf = async (res: Response) => {
    const id = res.headers['x-request-id'];
    expect(typeof id).toBe('string');
    const found = await waitFor(`the log line of ${id}`, () => {
      const matching = requestLines().filter((line) => line['requestId'] === id);
      return matching.length > 0 ? matching : undefined;
    }, 5000);
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  const secrets: Record<string, string> = { password: PASSWORD, wrongPassword: WRONG_PASSWORD, sentence: SENTENCE };
  let traceIdInQuery = '';
  const responses: Response[] = [];
  const record = (res: Response) => {
    responses.push(res);
    return res;
  };

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        output.push(chunk.toString());
        callback();
      },
    });
    l = await startLantern({ logger: createLogger({ service: 'test', stream }) });
  });
  afterAll(() => l.stop());

  it('writes one JSON line per request: requestId, method, route pattern, status, durationMs; X-Request-Id echoed', async () => {
    const res = record(await l.http.get('/healthz').set('X-Request-Id', 'req-42.a:b').expect(200));
    expect(res.headers['x-request-id']).toBe('req-42.a:b');
    const line = await lineOf(res);
    expect(line).toMatchObject({ message: 'request', level: 'info', requestId: 'req-42.a:b', method: 'GET', route: '/healthz', status: 200 });
    expect(typeof line['durationMs']).toBe('number');
    expect(line['durationMs'] as number).toBeGreaterThanOrEqual(0);

    // An id that is not safe to log is replaced by a generated one, which is echoed.
    const unsafe = record(await l.http.get('/healthz').set('X-Request-Id', 'two words\u00e9').expect(200));
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await lineOf(unsafe))['requestId']).toBe(unsafe.headers['x-request-id']);
  });

  it('logs the route pattern, never the URL, ids or query string; a credential sent as request id is not echoed', async () => {
    // Register, log in, fail to log in, create the tenancy and a key.
    const reg = record(await l.http.post('/auth/register').send({ email: 'log-test@example.com', password: PASSWORD }).expect(201));
    secrets['jwt'] = reg.body.token as string;
    record(await l.http.post('/auth/login').send({ email: 'log-test@example.com', password: PASSWORD }).expect(200));
    const failed = record(await l.http.post('/auth/login').send({ email: 'log-test@example.com', password: WRONG_PASSWORD }).expect(401));
    expect(await lineOf(failed)).toMatchObject({ method: 'POST', route: '/auth/login', status: 401 });
    record(await l.http.post('/auth/login').set('Content-Type', 'application/json').send(`{"email":"log-test@example.com","password":"${WRONG_PASSWORD}"`).expect(400));
    const auth = bearer(secrets['jwt']);
    const org = record(await l.http.post('/organizations').set(auth).send({ name: 'Log org' }).expect(201));
    const project = record(await l.http.post('/projects').set(auth).send({ name: 'Log project', organizationId: org.body.id }).expect(201));
    const app = record(await l.http.post('/applications').set(auth).send({ name: 'log-app', projectId: project.body.id }).expect(201));
    const key = record(await l.http.post(`/applications/${app.body.id}/api-keys`).set(auth).send({ name: 'k' }).expect(201));
    secrets['apiKey'] = key.body.key as string;
    expect(await lineOf(key)).toMatchObject({ method: 'POST', route: '/applications/:id/api-keys', status: 201 });

    // Ingest with the key, and with a key that is almost it.
    const traceId = randomUUID();
    record(await l.http.post('/ingest/traces').set('x-api-key', secrets['apiKey']).send(traceBatch([span({ traceId })])).expect(200));
    const almost = `${secrets['apiKey'].slice(0, -4)}AAAA`;
    secrets['almostKey'] = almost;
    const refused = record(await l.http.post('/ingest/traces').set('x-api-key', almost).send(traceBatch([span()])).expect(401));
    expect(await lineOf(refused)).toMatchObject({ method: 'POST', route: '/ingest/traces', status: 401 });

    // Reads with the JWT and a query string.
    const read = record(await l.http.get(`/logs/project?id=${project.body.id}&traceId=${traceId}`).set(auth).expect(200));
    expect(read.body).toHaveLength(1);
    expect(await lineOf(read)).toMatchObject({ method: 'GET', route: '/logs/project', status: 200 });
    record(await l.http.get('/ingest/logs?level=error').set(auth).expect(200));
    record(await l.http.get(`/metrics?projectId=${project.body.id}`).set(auth).expect(200));
    record(await l.http.get('/logs/project?id=1').set('Authorization', `Bearer ${secrets['jwt']}x`).expect(401));

    // A URL that carries secrets in its path and query: logged as unmatched, nothing of the URL.
    const lost = record(await l.http.get(`/nowhere/${secrets['apiKey']}?token=${secrets['jwt']}`).expect(404));
    expect(await lineOf(lost)).toMatchObject({ method: 'GET', route: 'unmatched', status: 404 });

    // A client that sends its key as the request id gets a generated id instead.
    const misused = record(await l.http.get('/healthz').set('X-Request-Id', secrets['apiKey']).expect(200));
    expect(misused.headers['x-request-id']).not.toBe(secrets['apiKey']);
    expect((await lineOf(misused))['requestId']).toBe(misused.headers['x-request-id']);
    traceIdInQuery = traceId;
  });

  it('logs an upload by route and status, never the document content', async () => {
    const auth = bearer(secrets['jwt']!);
    const orgs = record(await l.http.get('/organizations').set(auth).expect(200));
    const tenant = record(await l.http.post('/ai/tenant').set(auth).send({ name: 'Docs', organizationId: orgs.body[0].id }).expect(200));
    const upload = record(
      await l.http
        .post(`/ai/docs?TenantId=${encodeURIComponent(tenant.body.id as string)}`)
        .set(auth)
        .attach('file', Buffer.from(`Minutes\n\n${SENTENCE}\n`, 'utf8'), { filename: 'minutes.txt', contentType: 'text/plain' })
        .expect(200),
    );
    expect(await lineOf(upload)).toMatchObject({ method: 'POST', route: '/ai/docs', status: 200 });
    expect(lines()).toContainEqual(expect.objectContaining({ message: 'document stored', documentId: upload.body.id }));
  });

  it('has exactly one request line per request, and no line holds a password, key, JWT, content or query string', async () => {
    for (const res of responses) await lineOf(res);
    expect(requestLines()).toHaveLength(responses.length);
    const text = output.join('');
    const jwt = secrets['jwt']!;
    const forbidden = {
      ...secrets,
      jwtSignature: jwt.slice(jwt.lastIndexOf('.') + 1),
      jwtPayload: jwt.split('.')[1]!,
      apiKeySecretPart: secrets['apiKey']!.slice(12),
      sentenceFragment: 'seventeen lanterns',
      traceIdInQuery,
    };
    for (const [what, value] of Object.entries(forbidden)) {
      expect(value.length).toBeGreaterThan(8);
      expect({ what, found: text.includes(value) }).toEqual({ what, found: false });
    }
    for (const line of requestLines()) {
      expect(Object.keys(line).sort()).toEqual(['durationMs', 'level', 'message', 'method', 'requestId', 'route', 'service', 'status', 'timestamp']);
      expect(String(line['route'])).not.toMatch(/[?=]/);
    }
  });
});
