import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BOUNDARY, createAiTenant, listDocs, multipart } from './ai-helpers.js';
import { healthz, listenWithLimits, rawConnection, sleep, untilReceived, type RawConnection } from './abuse-helpers.js';
import { createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

/**
 * Uploads received at once are capped per process (MAX_CONCURRENT_UPLOADS): past it an upload waits its turn with
 * its body unread, and is served when a slot frees (issue 13: 100 concurrent 10 MB uploads kept /healthz waiting
 * hundreds of ms; bench/abuse/run.mjs). One user holds at most 2 slots, and a wait is bounded (UPLOAD_WAIT_MS).
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

  it('takes no slot for an upload whose client went away while the store was still being asked (during findTenant)', async () => {
    // The real store, its getTenant answering 200 ms late (a slow MongoDB round trip).
    const getTenant = l.store.getTenant.bind(l.store);
    l.store.getTenant = async (...args) => {
      await sleep(200);
      return getTenant(...args);
    };
    try {
      for (let i = 0; i < 3; i++) {
        const gone = await rawConnection(listening.port);
        gone.socket.write(requestHead(1000));
        await sleep(50);
        gone.socket.destroy();
        await sleep(300);
      }
    } finally {
      l.store.getTenant = getTenant;
    }
    // With one slot in all, a leaked one would leave this upload waiting.
    const doc = multipart([{ name: 'file', filename: 'after-reset.txt', contentType: 'text/plain', data: 'after the resets\n' }]);
    const c = await rawConnection(listening.port);
    c.socket.write(requestHead(doc.length));
    c.socket.write(doc);
    await untilReceived(c.received, '"status":"stored"', 5000);
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('abusive uploads: one user holds at most 2 slots, and a wait is bounded', () => {
  const WAIT_MS = 3000;
  let l: Lantern;
  let listening: Awaited<ReturnType<typeof listenWithLimits>>;
  const users: Array<{ t: Tenancy; tenantId: string }> = [];
  const opened: RawConnection[] = [];
  beforeAll(async () => {
    l = await startLantern({ limits: { maxConcurrentUploads: 3, uploadWaitMs: WAIT_MS } });
    for (const name of ['share-a', 'share-b', 'share-c']) {
      const t = await createTenancy(l, name);
      users.push({ t, tenantId: await createAiTenant(l, t.token, t.organizationId, name) });
    }
    listening = await listenWithLimits(l, {});
  });
  afterAll(async () => {
    for (const c of opened) c.socket.destroy();
    await listening.close();
    await l.stop();
  });

  /** Sends an upload of user `u`: whole, or its first 40 bytes only (it then holds its slot). */
  const send = async (u: number, name: string, whole: boolean) => {
    const doc = multipart([{ name: 'file', filename: `${name}.txt`, contentType: 'text/plain', data: `${name} document\n` }]);
    const c = await rawConnection(listening.port);
    opened.push(c);
    c.socket.write(`POST /ai/docs?TenantId=${users[u]!.tenantId} HTTP/1.1\r\nHost: lantern\r\nAuthorization: Bearer ${users[u]!.t.token}\r\n`
      + `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${doc.length}\r\nConnection: close\r\n\r\n`);
    c.socket.write(whole ? doc : doc.subarray(0, 40));
    await sleep(100);
    return { c, rest: () => c.socket.write(doc.subarray(40)), sentAt: Date.now() };
  };

  it('serves another user\'s upload past a user at their share, and answers a waiter 503 unavailable with Retry-After after UPLOAD_WAIT_MS', async () => {
    const a1 = await send(0, 'a1', false);
    const a2 = await send(0, 'a2', false);
    const b1 = await send(1, 'b1', false);
    // Every slot is taken: A's third and C's first wait, A's ahead of C's.
    const a3 = await send(0, 'a3', true);
    const c1 = await send(2, 'c1', true);
    await sleep(300);
    expect(a3.c.received()).toBe('');
    expect(c1.c.received()).toBe('');
    // B's slot frees: A already holds 2, so C's upload takes it, though it came after A's third.
    b1.rest();
    await untilReceived(b1.c.received, '"status":"stored"');
    await untilReceived(c1.c.received, '"status":"stored"');
    expect(c1.c.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(a3.c.received()).toBe('');
    // A's third waits its longest, then is answered 503 unavailable, nothing stored, and the connection closed.
    await untilReceived(a3.c.received, '"error"', WAIT_MS + 10_000);
    expect(Date.now() - a3.sentAt).toBeGreaterThanOrEqual(WAIT_MS - 200);
    const answer = a3.c.received();
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nRetry-After: 5\r\n/i);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error).toMatchObject({ code: 'unavailable', details: [{ waitedMs: WAIT_MS }] });
    await a3.c.closed;
    // A's first two are still served when they complete; only they and B's and C's are stored.
    a1.rest();
    a2.rest();
    await untilReceived(a1.c.received, '"status":"stored"');
    await untilReceived(a2.c.received, '"status":"stored"');
    expect((await listDocs(l, users[0]!.t.token, users[0]!.tenantId)).map((d) => d['filename']).sort()).toEqual(['a1.txt', 'a2.txt']);
  });
});
