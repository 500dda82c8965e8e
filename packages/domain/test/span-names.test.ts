import { describe, expect, it } from '@jest/globals';
import type { Span } from '../src/types.js';
import { MAX_NAME_LENGTH, operationOf, serviceOf } from '../src/span-names.js';

const span = (extra: Record<string, unknown>): Span => ({ traceId: 't', spanId: 's', timestamp: '2026-11-22T10:00:00.000Z', ...extra } as Span);

describe('operationOf', () => {
  it('is the OpenTelemetry name, else the name part of requestMethod', () => {
    expect(operationOf(span({ name: 'SELECT orders', requestMethod: 'service:db' }))).toBe('SELECT orders');
    expect(operationOf(span({ requestMethod: 'service:chargeCard' }))).toBe('chargeCard');
    expect(operationOf(span({ requestMethod: 'plain' }))).toBe('plain');
    expect(operationOf(span({}))).toBeUndefined();
    expect(operationOf(span({ requestMethod: 'controller:' }))).toBeUndefined();
  });

  it('gives a server span named by its method alone its route: Lantern\'s route or OpenTelemetry\'s http.route', () => {
    expect(operationOf(span({ requestMethod: 'controller:POST', route: '/charge' }))).toBe('POST /charge');
    expect(operationOf(span({ name: 'GET', kind: 'server', attributes: [{ key: 'http.route', value: '/items/:id' }] }))).toBe('GET /items/:id');
    // Already a full name, or not a server span: as it is.
    expect(operationOf(span({ name: 'GET /items/:id', kind: 'server', attributes: [{ key: 'http.route', value: '/items/:id' }] }))).toBe('GET /items/:id');
    expect(operationOf(span({ name: 'GET', kind: 'client', attributes: [{ key: 'http.route', value: '/x' }] }))).toBe('GET');
    expect(operationOf(span({ requestMethod: 'external:GET', route: '/x' }))).toBe('GET');
  });

  it('cuts names past the index key length', () => {
    expect(operationOf(span({ name: 'x'.repeat(500) }))).toHaveLength(MAX_NAME_LENGTH);
    expect(operationOf(span({ requestMethod: 'controller:GET', route: `/${'y'.repeat(500)}` }))).toHaveLength(MAX_NAME_LENGTH);
  });
});

describe('serviceOf', () => {
  it('is the span\'s serviceName when it is a non-empty string', () => {
    expect(serviceOf(span({ serviceName: 'checkout' }))).toBe('checkout');
    expect(serviceOf(span({ serviceName: '' }))).toBeUndefined();
    expect(serviceOf(span({ serviceName: 42 }))).toBeUndefined();
    expect(serviceOf(span({}))).toBeUndefined();
  });
});
