import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, createTenancy, log, logBatch, span, startLantern, traceBatch, type Lantern, type Tenancy } from './harness.js';
import { expectDocumentedRefusal, expectRateLimited, IN_ONE_WINDOW_TIMEOUT, inOneWindow } from './limits-helpers.js';
import { addProject, sendLogs, sendTraces, traceIdsOf, traces } from './telemetry-helpers.js';

/** Ingest limits per application and per organization (issue 18): more keys do not buy more allowance. */
describe('ingest: rate limits per application and per organization', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern({
      rateLimit: { enabled: true, ingestPerMinute: 100, authPerMinute: 1000 },
      limits: { ingestPerApplicationPerMinute: 3, ingestPerOrganizationPerMinute: 5 },
    });
    t = await createTenancy(l, 'lim-ingest');
  });
  afterAll(() => l.stop());

  const newKey = async (applicationId: number) =>
    (await l.http.post(`/applications/${applicationId}/api-keys`).set(bearer(t.token)).send({ name: 'more' }).expect(201)).body.key as string;

  it('gives three keys of one application one allowance, not three; other organizations are not affected', async () => {
    const keys = [t.apiKey, await newKey(t.applicationId), await newKey(t.applicationId)];
    const other = await createTenancy(l, 'lim-other');
    await inOneWindow();
    for (const key of keys) await sendTraces(l, key, traceBatch([span()])).expect(200);
    const refused = span();
    for (const key of keys) {
      const traced = await sendTraces(l, key, traceBatch([refused]));
      expectRateLimited(traced, 'this application');
      expectDocumentedRefusal('POST', '/ingest/traces', traced);
      const logged = await sendLogs(l, key, logBatch([log()]));
      expectRateLimited(logged, 'this application');
      expectDocumentedRefusal('POST', '/ingest/logs', logged);
    }
    expect(traceIdsOf(await traces(l, t))).not.toContain(refused['traceId']);
    // Another organization's application has its own allowances.
    await sendTraces(l, other.apiKey, traceBatch([span()])).expect(200);

    // The organization's other applications share what is left of its allowance (3 used of 5); the requests
    // refused above at the application's limit did not count against the organization.
    const second = await addProject(l, t, 'lim second');
    await sendTraces(l, second.apiKey, traceBatch([span()])).expect(200);
    await sendLogs(l, second.apiKey, logBatch([log()])).expect(200);
    expectRateLimited(await sendTraces(l, second.apiKey, traceBatch([span()])), 'this organization');
    await sendTraces(l, other.apiKey, traceBatch([span()])).expect(200);
  }, IN_ONE_WINDOW_TIMEOUT);
});
