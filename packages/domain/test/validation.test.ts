import { describe, expect, it } from '@jest/globals';
import { allSchemas, schemas, validatorFor } from '../src/index.js';

/** Every subschema of `value` with `format: 'uuid'`, with its path. */
function uuidFormats(value: unknown, path = ''): Array<{ path: string; schema: Record<string, unknown> }> {
  if (value === null || typeof value !== 'object') return [];
  const here = !Array.isArray(value) && (value as Record<string, unknown>)['format'] === 'uuid' ? [{ path, schema: value as Record<string, unknown> }] : [];
  return [...here, ...Object.entries(value).flatMap(([k, v]) => uuidFormats(v, `${path}/${k}`))];
}

describe('validation: the uuid format is not checked twice', () => {
  it('gives every schema with format uuid the pattern that does the check', () => {
    const found = allSchemas.flatMap((schema) => uuidFormats(schema, String((schema as { $id?: string }).$id)));
    expect(found.length).toBeGreaterThan(0);
    for (const { path, schema } of found) {
      expect([path, schema['pattern']]).toEqual([path, '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$']);
    }
  });

  it('still refuses a span whose ids are not uuids, the urn form that the format allowed included', () => {
    const span = validatorFor(schemas.telemetry.span.$id);
    const good = { timestamp: '2026-11-27T00:00:00.000Z', requestMethod: 'controller:GET', traceId: 'ee152e88-eb3c-8951-301a-fd3f3e5e68aa', spanId: '2ba7ebda-cf0f-4767-0000-000000000000' };
    expect(span.issues(good)).toEqual([]);
    for (const bad of ['urn:uuid:ee152e88-eb3c-8951-301a-fd3f3e5e68aa', 'ee152e88eb3c8951301afd3f3e5e68aa', 'ee152e88-eb3c-8951-301a-fd3f3e5e68a', 'ge152e88-eb3c-8951-301a-fd3f3e5e68aa']) {
      expect(span.issues({ ...good, traceId: bad }).map((i) => i.path)).toEqual(['/traceId']);
    }
  });
});
