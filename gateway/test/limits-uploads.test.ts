import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, expectError, register, type Registered } from './accounts-helpers.js';
import { blobKeys, createAiTenant, expectNothingKept, listDocs, snapshot, upload } from './ai-helpers.js';
import { bearer, createTenancy, listenOnPort, startLantern, type Lantern, type Tenancy } from './harness.js';
import { expectDocumentedRefusal, expectRateLimited, IN_ONE_WINDOW_TIMEOUT, inOneWindow } from './limits-helpers.js';

/** Upload rate limits per user and per organization (issue 18). */
describe('AI documents: upload rate limits', () => {
  let l: Lantern;
  let t: Tenancy;
  let colleague: Registered;
  let tenantId: string;
  beforeAll(async () => {
    l = await startLantern({
      rateLimit: { enabled: true, ingestPerMinute: 1000, authPerMinute: 1000 },
      limits: { uploadsPerUserPerMinute: 2, uploadsPerOrganizationPerMinute: 3 },
    });
    t = await createTenancy(l, 'lim-up');
    colleague = await register(l, 'lim-up-colleague');
    await addMember(l, t.token, t.organizationId, colleague);
    tenantId = await createAiTenant(l, t.token, t.organizationId, 'uploads');
  });
  afterAll(() => l.stop());

  it('refuses a user\'s third upload in a minute, then the organization\'s fourth, with 429 rate_limited and Retry-After, keeping nothing', async () => {
    await inOneWindow();
    await upload(l, t.token, tenantId, 'one\n').expect(200);
    await upload(l, t.token, tenantId, 'two\n').expect(200);
    const refused = await upload(l, t.token, tenantId, 'three\n');
    expectRateLimited(refused, 'your uploads');
    expectDocumentedRefusal('POST', '/ai/docs', refused);
    // Another member has their own allowance, within the organization's (3 a minute, 2 used).
    await upload(l, colleague.token, tenantId, 'four\n').expect(200);
    expectRateLimited(await upload(l, colleague.token, tenantId, 'five\n'), 'this organization\'s uploads');
    // Only the three accepted uploads are kept: records and objects.
    expect((await listDocs(l, t.token, tenantId)).length).toBe(3);
    expect((await blobKeys(l)).length).toBe(3);
  }, IN_ONE_WINDOW_TIMEOUT);
});

/** A per-organization storage quota (issue 18): an upload that would exceed it is 413 and nothing is kept. */
describe('AI documents: the organization\'s storage quota', () => {
  const QUOTA = 100;
  let l: Lantern;
  let t: Tenancy;
  let first: string;
  let second: string;
  beforeAll(async () => {
    l = await startLantern({ limits: { storageQuotaBytes: QUOTA } });
    t = await createTenancy(l, 'lim-quota');
    first = await createAiTenant(l, t.token, t.organizationId, 'first');
    second = await createAiTenant(l, t.token, t.organizationId, 'second');
  });
  afterAll(() => l.stop());

  const text = (n: number, c: string) => `${c.repeat(n - 1)}\n`;

  it('counts every tenant of the organization, refuses the upload that would pass the quota with 413 quota_exceeded, keeps nothing of it', async () => {
    await upload(l, t.token, first, text(60, 'a')).expect(200);
    const before = await snapshot(l, t.token, second);
    const res = await upload(l, t.token, second, text(41, 'b'));
    expectError(res, 413, 'quota_exceeded');
    expectDocumentedRefusal('POST', '/ai/docs', res);
    expect(res.body.error.details).toEqual([{ quotaBytes: QUOTA, usedBytes: 60 }]);
    await expectNothingKept(l, t.token, second, before);
    // Exactly up to the quota is fine.
    await upload(l, t.token, second, text(40, 'c')).expect(200);
  });

  it('answers a same-bytes upload with the existing record while there is room, and refuses any upload once full', async () => {
    // Full (100 of 100): refused before the body is read, whatever it holds.
    const before = await snapshot(l, t.token, first);
    expectError(await upload(l, t.token, first, 'x\n'), 413, 'quota_exceeded');
    await expectNothingKept(l, t.token, first, before);
    // Deleting a document makes room again; the same bytes uploaded twice take room once.
    const docs = await listDocs(l, t.token, second);
    await l.http.delete(`/ai/docs/${String(docs[0]!['id'])}`).set(bearer(t.token)).expect(204);
    const one = await upload(l, t.token, second, text(20, 'd')).expect(200);
    const again = await upload(l, t.token, second, text(20, 'd')).expect(200);
    expect(again.body.id).toBe(one.body.id);
    await upload(l, t.token, second, text(20, 'e')).expect(200);
    expectError(await upload(l, t.token, second, text(1, 'f')), 413, 'quota_exceeded');
  });

  it('holds under concurrent uploads: identical ones keep one record, together they never pass the quota', async () => {
    const org = await createTenancy(l, 'lim-quota-race');
    const tenant = await createAiTenant(l, org.token, org.organizationId, 'race');
    const same = await Promise.all(Array.from({ length: 5 }, () => upload(l, org.token, tenant, text(30, 's'))));
    expect(same.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(same.map((r) => r.body.id)).size).toBe(1);
    expect(await listDocs(l, org.token, tenant)).toHaveLength(1);
    const keysBefore = (await blobKeys(l)).filter((k) => k.includes(tenant));
    expect(keysBefore).toHaveLength(1);
    // 30 used; three of 40 at once: at most one more fits (30 + 40 + 40 > 100).
    const racing = await Promise.all(['p', 'q', 'r'].map((c) => upload(l, org.token, tenant, text(40, c))));
    for (const r of racing) if (r.status !== 200) expectError(r, 413, 'quota_exceeded');
    const kept = await listDocs(l, org.token, tenant);
    const bytes = kept.reduce((sum, d) => sum + Number(d['size']), 0);
    expect(bytes).toBeLessThanOrEqual(QUOTA);
    expect(kept).toHaveLength(1 + racing.filter((r) => r.status === 200).length);
    expect((await blobKeys(l)).filter((k) => k.includes(tenant))).toHaveLength(kept.length);
  });

  it('refuses before reading a body whose declared length cannot fit, keeping nothing', async () => {
    const org = await createTenancy(l, 'lim-quota-declared');
    const tenant = await createAiTenant(l, org.token, org.organizationId, 'declared');
    const before = await snapshot(l, org.token, tenant);
    // 1 MiB declared against a 100-byte quota, and not one byte of the body sent: the answer comes from the headers.
    const server = await listenOnPort(l);
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request({
          host: '127.0.0.1', port: server.port, method: 'POST', path: `/ai/docs?TenantId=${tenant}`,
          headers: { Authorization: `Bearer ${org.token}`, 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(1024 * 1024) },
        }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.flushHeaders();
        setTimeout(() => req.destroy(new Error('no answer without the body')), 10_000).unref();
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toEqual({ error: { code: 'quota_exceeded', message: expect.any(String), details: [{ quotaBytes: QUOTA, usedBytes: 0 }] } });
    } finally {
      await server.close();
    }
    await expectNothingKept(l, org.token, tenant, before);
  });

  it('leaves other organizations their own quota', async () => {
    const other = await createTenancy(l, 'lim-quota-other');
    const tenant = await createAiTenant(l, other.token, other.organizationId, 'theirs');
    await upload(l, other.token, tenant, text(90, 'z')).expect(200);
  });
});
