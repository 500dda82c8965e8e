import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { traceRecords } from '../src/api/client';
import { parseTraceId } from '../src/lib/trace-id';

const ID = '6f1c2b0e-6d1a-4a55-8f4e-2b8d2f6b1c11';

describe('parseTraceId', () => {
  it('reads a UUID from the path segment: decoded, trimmed, lower-case', () => {
    expect(parseTraceId(ID)).toBe(ID);
    expect(parseTraceId(ID.toUpperCase())).toBe(ID);
    expect(parseTraceId(`%20${ID}%20`)).toBe(ID);
  });

  it('refuses what is not a trace id, so the page asks the API for nothing', () => {
    for (const bad of ['', ' ', '%20', 'abc', `${ID}x`, ID.slice(0, -1), ID.replace(/-/g, ''), `urn:uuid:${ID}`, '%E0%A4%A', `${ID}/x`, `${ID}?span=1`]) {
      expect(parseTraceId(bad)).toBeUndefined();
    }
  });
});

describe('traceRecords', () => {
  const realFetch = globalThis.fetch;
  afterEach(() => { globalThis.fetch = realFetch; });

  const stubFetch = () => {
    const fetch = jest.fn(async (_url: string | URL | Request, _init?: RequestInit) => new Response('[]', { status: 200 }));
    globalThis.fetch = fetch as unknown as typeof globalThis.fetch;
    return fetch;
  };

  it('refuses an empty traceId without a request (the API would list the whole project)', async () => {
    const fetch = stubFetch();
    await expect(traceRecords(3, '')).rejects.toThrow(/traceId/);
    await expect(traceRecords(3, '  ')).rejects.toThrow(/traceId/);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('asks for one trace of the project', async () => {
    const fetch = stubFetch();
    await expect(traceRecords(3, ID)).resolves.toEqual([]);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(String(fetch.mock.calls[0]![0])).toBe(`/logs/project?id=3&traceId=${ID}`);
  });
});
