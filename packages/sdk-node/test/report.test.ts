import { describe, expect, it } from '@jest/globals';
import { createReporter, DROP_REPORT_EVERY_MS, type DropInfo, type LanternError } from '../src/report.js';
import { waitFor } from './helpers/wait.js';

/** Drops stay loud but cheap: summed per kind and reason, one report per reason at most every second. */

const nextTick = () => new Promise<void>((r) => setImmediate(r));
const sum = (drops: DropInfo[]) => drops.reduce((n, d) => n + d.count, 0);

describe('drop reports', () => {
  it('the first drop is reported at the end of its tick; drops in the following ticks are summed into one report a second later', async () => {
    const drops: Array<DropInfo & { at: number }> = [];
    const reporter = createReporter({ onDrop: (d) => drops.push({ ...d, at: Date.now() }) });
    const started = Date.now();
    reporter.drop('traces', 1, 'queue_full');
    await nextTick();
    expect(drops).toEqual([{ kind: 'traces', count: 1, reason: 'queue_full', at: expect.any(Number) }]);
    // One drop per request, each in its own tick: 500 of them.
    for (let i = 0; i < 500; i++) {
      reporter.drop('traces', 1, 'queue_full');
      await nextTick();
    }
    expect(drops).toHaveLength(1);
    await waitFor(() => sum(drops) === 501, 'the held-back drops');
    expect(drops).toHaveLength(2);
    expect(drops[1]).toMatchObject({ kind: 'traces', count: 500, reason: 'queue_full' });
    expect(drops[1]!.at - started).toBeGreaterThanOrEqual(DROP_REPORT_EVERY_MS - 50);
  });

  it('another reason or kind is reported at once, not held back by the first one', async () => {
    const drops: DropInfo[] = [];
    const reporter = createReporter({ onDrop: (d) => drops.push(d) });
    reporter.drop('traces', 3, 'queue_full');
    await nextTick();
    reporter.drop('traces', 1, 'queue_full');
    reporter.drop('traces', 2, 'too_large');
    reporter.drop('logs', 4, 'queue_full');
    await nextTick();
    expect(drops).toEqual([
      { kind: 'traces', count: 3, reason: 'queue_full' },
      { kind: 'traces', count: 2, reason: 'too_large' },
      { kind: 'logs', count: 4, reason: 'queue_full' },
    ]);
    reporter.flushDrops();
    expect(drops[3]).toEqual({ kind: 'traces', count: 1, reason: 'queue_full' });
  });

  it('flushDrops() reports what is held back at once, and nothing twice', async () => {
    const drops: DropInfo[] = [];
    const reporter = createReporter({ onDrop: (d) => drops.push(d) });
    reporter.drop('logs', 1, 'queue_full');
    await nextTick();
    reporter.drop('logs', 7, 'queue_full');
    reporter.flushDrops();
    expect(drops.map((d) => d.count)).toEqual([1, 7]);
    await new Promise((r) => setTimeout(r, DROP_REPORT_EVERY_MS + 100));
    expect(drops.map((d) => d.count)).toEqual([1, 7]);
  });

  it('sync (the process exit) reports at once, together with what was held back for that reason', async () => {
    const drops: DropInfo[] = [];
    const reporter = createReporter({ onDrop: (d) => drops.push(d) });
    reporter.drop('logs', 1, 'exit');
    await nextTick();
    reporter.drop('logs', 2, 'exit');
    reporter.drop('logs', 5, 'exit', true);
    expect(drops.map((d) => d.count)).toEqual([1, 7]);
  });

  it('without onDrop: one LanternError per report, carrying the summed count', async () => {
    const errors: LanternError[] = [];
    const reporter = createReporter({ onError: (e) => errors.push(e) });
    for (let i = 0; i < 100_000; i++) reporter.drop('traces', 1, 'queue_full');
    await nextTick();
    for (let i = 0; i < 1_000; i++) {
      reporter.drop('traces', 1, 'queue_full');
      if (i % 100 === 0) await nextTick();
    }
    reporter.flushDrops();
    expect(errors.map((e) => [e.code, e.count, e.message])).toEqual([
      ['dropped', 100_000, '100000 spans dropped (queue_full)'],
      ['dropped', 1_000, '1000 spans dropped (queue_full)'],
    ]);
  });
});
