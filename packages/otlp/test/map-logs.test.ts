import { describe, expect, it } from '@jest/globals';
import { levelOf, mapLogs, type OtlpLogRecord } from '../src/index.js';

const RECEIVED = '2026-11-26T00:00:00.000Z';
const one = (record: OtlpLogRecord) => {
  const m = mapLogs({ resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'api' } }] }, scopeLogs: [{ scope: { name: 'logger' }, logRecords: [record] }] }] }, RECEIVED);
  return m.rejected.length > 0 ? { rejected: m.rejected[0] } : m.items[0]!;
};

describe('mapLogs: level', () => {
  it.each([
    [1, 'trace'], [4, 'trace'], [5, 'debug'], [8, 'debug'], [9, 'info'], [12, 'info'], [13, 'warn'], [16, 'warn'],
    [17, 'error'], [20, 'error'], [21, 'fatal'], [24, 'fatal'],
    ['SEVERITY_NUMBER_WARN', 'warn'], ['SEVERITY_NUMBER_ERROR3', 'error'], ['SEVERITY_NUMBER_TRACE4', 'trace'],
  ])('severityNumber %j -> %s', (n, level) => {
    expect(levelOf(n, 'fatal')).toBe(level);
  });
  it.each([
    ['TRACE', 'trace'], ['Debug', 'debug'], ['info', 'info'], ['Information', 'info'], ['WARN', 'warn'], ['warning', 'warn'],
    ['error', 'error'], ['Fatal', 'fatal'], ['CRITICAL', 'fatal'], ['notice', 'info'], [undefined, 'info'],
  ])('no number: severityText %j -> %s', (text, level) => {
    expect(levelOf(0, text)).toBe(level);
    expect(levelOf(undefined, text)).toBe(level);
    expect(levelOf(25, text)).toBe(level);
  });
});

describe('mapLogs: the record', () => {
  it('message, times, ids, severityText, serviceName, resource, scope, attributes', () => {
    expect(one({
      timeUnixNano: '1700000000123456789', observedTimeUnixNano: '1700000001000000000', severityNumber: 17, severityText: 'ERROR',
      body: { stringValue: 'payment failed' }, traceId: '5B8EFFF798038103D269B633813FC60C', spanId: 'eee19b7ec3c1b174',
      attributes: [{ key: 'order.id', value: { intValue: '7' } }],
    })).toEqual({
      level: 'error', message: 'payment failed', timestamp: '2023-11-14T22:13:20.123Z', clientTimestamp: '2023-11-14T22:13:21.000Z', type: 'app',
      traceId: '5b8efff7-9803-8103-d269-b633813fc60c', spanId: 'eee19b7e-c3c1-b174-0000-000000000000', severityText: 'ERROR',
      serviceName: 'api', resource: [{ key: 'service.name', value: 'api' }], scope: { name: 'logger' }, attributes: [{ key: 'order.id', value: 7 }],
    });
  });
  it('timestamp falls back to the observed time, then to the time received; clientTimestamp to the timestamp', () => {
    expect(one({ observedTimeUnixNano: '1700000001000000000' })).toMatchObject({ timestamp: '2023-11-14T22:13:21.000Z', clientTimestamp: '2023-11-14T22:13:21.000Z' });
    expect(one({ timeUnixNano: '1700000000000000000' })).toMatchObject({ timestamp: '2023-11-14T22:13:20.000Z', clientTimestamp: '2023-11-14T22:13:20.000Z' });
    expect(one({})).toMatchObject({ timestamp: RECEIVED, clientTimestamp: RECEIVED, message: '', level: 'info' });
  });
  it.each([
    [{ intValue: '5' }, '5'],
    [{ boolValue: true }, 'true'],
    [{ kvlistValue: { values: [{ key: 'a.b', value: { stringValue: 'c' } }] } }, '[{"key":"a.b","value":"c"}]'],
    [{ arrayValue: { values: [{ stringValue: 'x' }, { doubleValue: 2.5 }] } }, '["x",2.5]'],
    [{}, ''],
  ])('body %j -> message %j', (body, message) => {
    expect(one({ body })['message']).toBe(message);
  });
  it('empty or all-zero ids mean none', () => {
    const r = one({ traceId: '', spanId: '0000000000000000' });
    expect(r).not.toHaveProperty('traceId');
    expect(r).not.toHaveProperty('spanId');
  });
  it.each([
    [{ traceId: 'abc' }, 'traceId must be 32 hex digits'],
    [{ spanId: 'eee19b7ec3c1b17' }, 'spanId must be 16 hex digits'],
  ])('rejects %j', (record, why) => {
    expect(one(record)).toEqual({ rejected: expect.stringContaining(why) });
  });
});
