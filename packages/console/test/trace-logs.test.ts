import { describe, expect, it } from '@jest/globals';
import type { LogEntry, Span, TraceRecord } from '../src/api/types';
import { groupLogsBySpan, withLogRows, worstLevel } from '../src/lib/trace-logs';
import { layoutTrace } from '../src/lib/waterfall';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const TRACE = '11111111-1111-4111-8111-111111111111';
const log = (id: string, at: number, spanId?: unknown, level = 'info'): LogEntry => ({
  id, projectId: 1, applicationId: 1, traceId: TRACE, level, type: 'app', message: id, timestamp: new Date(T0 + at).toISOString(),
  clientTimestamp: new Date(T0 + at).toISOString(), ...(spanId === undefined ? {} : { spanId }),
});
const span = (id: string, parent: string | null): Span => ({ traceId: TRACE, spanId: id, parentSpanId: parent, timestamp: new Date(T0).toISOString(), durationMs: 5, requestMethod: 'service:x' });

describe('groupLogsBySpan', () => {
  it('puts each log under its span, oldest first', () => {
    const { bySpan, unplaced } = groupLogsBySpan([log('b', 20, 'child'), log('a', 10, 'child'), log('c', 5, 'root')], new Set(['root', 'child']), 'root');
    expect(bySpan.get('child')!.map((l) => l.id)).toEqual(['a', 'b']);
    expect(bySpan.get('root')!.map((l) => l.id)).toEqual(['c']);
    expect(unplaced).toBe(0);
  });

  it('puts a log without a span, or with a span the trace lacks, under the root, and counts it', () => {
    const { bySpan, unplaced } = groupLogsBySpan([log('a', 1), log('b', 2, 'gone'), log('c', 3, 42), log('d', 4, 'CHILD')], new Set(['root', 'child']), 'root');
    expect(bySpan.get('root')!.map((l) => l.id)).toEqual(['a', 'b', 'c']);
    expect(bySpan.get('child')!.map((l) => l.id)).toEqual(['d']);
    expect(unplaced).toBe(3);
  });

  it('leaves out what cannot be placed when there is no root', () => {
    expect(groupLogsBySpan([log('a', 1)], new Set(), undefined).bySpan.size).toBe(0);
  });
});

describe('withLogRows', () => {
  const rows = layoutTrace([{ id: 'r', projectId: 1, applicationId: 1, traceId: TRACE, timestamp: new Date(T0).toISOString(), telemetry: [span('root', null), span('child', 'root')] } as TraceRecord]).rows;
  const { bySpan } = groupLogsBySpan([log('a', 1, 'child'), log('b', 2, 'child'), log('c', 3, 'root')], new Set(['root', 'child']), 'root');

  it('shows the logs of open spans right under them, and only theirs', () => {
    expect(withLogRows(rows, bySpan, new Set()).map((i) => i.key)).toEqual(['root', 'child']);
    expect(withLogRows(rows, bySpan, new Set(['child'])).map((i) => i.key)).toEqual(['root', 'child', 'log:a', 'log:b']);
    const all = withLogRows(rows, bySpan, new Set(['root', 'child']));
    expect(all.map((i) => i.key)).toEqual(['root', 'log:c', 'child', 'log:a', 'log:b']);
    expect(all.filter((i) => i.kind === 'log').map((i) => i.row.spanId)).toEqual(['root', 'child', 'child']);
  });
});

describe('worstLevel', () => {
  it('is error for error or fatal, else warn, else info', () => {
    expect(worstLevel([log('a', 0, 'x', 'info'), log('b', 0, 'x', 'fatal')])).toBe('error');
    expect(worstLevel([log('a', 0, 'x', 'debug'), log('b', 0, 'x', 'warn')])).toBe('warn');
    expect(worstLevel([])).toBe('info');
  });
});
