import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BOUNDARY, createAiTenant, listDocs, multipart } from './ai-helpers.js';
import { healthz, listenWithLimits, rawConnection, untilReceived } from './abuse-helpers.js';
import { createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

/**
 * Uploads received at once are capped per process (MAX_CONCURRENT_UPLOADS): past it an upload waits its turn with
 * its body unread, and is served when a slot frees (issue 13: 100 concurrent 10 MB uploads kept /healthz waiting
 * hundreds of ms; bench/abuse/run.mjs).
 */
describe('abusive uploads: the uploads received at once are capped', () => {
  let l: Lantern;
  let t: Tenancy;
  let tenantId: string;
  let listening: Awaited<ReturnType<typeof listenWithLimits>>;
  beforeAll(async () => {
    l = await startLantern({ limits: { maxConcurrentUploads: 1 } });
    t = await createTenancy(l, 'abuse-slots');
    tenantId = await createAiTenant(l, t.token, t.organizationId, 'slots');
    listening = await listenWithLimits(l, {});
  });
  afterAll(async () => {
    await listening.close();
    await l.stop();
  });

  const requestHead = (length: number) => `POST /ai/docs?TenantId=${tenantId} HTTP/1.1\r\nHost: lantern\r\nAuthorization: Bearer ${t.token}\r\n`
    + `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;

  it('keeps a second upload waiting while the first is received, serves it once the first is done, and answers /healthz meanwhile', async () => {
    const first = multipart([{ name: 'file', filename: 'first.txt', contentType: 'text/plain', data: 'first document\n' }]);
    const second = multipart([{ name: 'file', filename: 'second.txt', contentType: 'text/plain', data: 'second document\n' }]);
    // The first sends half its body and holds its slot.
    const a = await rawConnection(listening.port);
    a.socket.write(requestHead(first.length));
    a.socket.write(first.subarray(0, 40));
    await new Promise((r) => setTimeout(r, 100));
    // The second sends all of it, and waits.
    const b = await rawConnection(listening.port);
    b.socket.write(requestHead(second.length));
    b.socket.write(second);
    await new Promise((r) => setTimeout(r, 500));
    expect(b.received()).toBe('');
    expect((await healthz(listening.port)).status).toBe(200);
    // The first completes: both are stored, in turn.
    a.socket.write(first.subarray(40));
    await untilReceived(a.received, '"status":"stored"');
    await untilReceived(b.received, '"status":"stored"');
    expect(a.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(b.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect((await listDocs(l, t.token, tenantId)).map((d) => d['filename']).sort()).toEqual(['first.txt', 'second.txt']);
  });

  it('frees the slot of an upload whose client went away, and drops a waiting one that went away', async () => {
    const doc = multipart([{ name: 'file', filename: 'third.txt', contentType: 'text/plain', data: 'third document\n' }]);
    const holder = await rawConnection(listening.port);
    holder.socket.write(requestHead(doc.length));
    holder.socket.write(doc.subarray(0, 40));
    await new Promise((r) => setTimeout(r, 100));
    const quitter = await rawConnection(listening.port);
    quitter.socket.write(requestHead(doc.length));
    await new Promise((r) => setTimeout(r, 100));
    quitter.socket.destroy();
    holder.socket.destroy();
    await new Promise((r) => setTimeout(r, 200));
    const c = await rawConnection(listening.port);
    c.socket.write(requestHead(doc.length));
    c.socket.write(doc);
    await untilReceived(c.received, '"status":"stored"', 5000);
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
  });
});
