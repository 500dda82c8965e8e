import { describe, expect, it } from '@jest/globals';
import { Pacing } from '../src/pacing.js';

/** How many batches may be in flight and when the next may start: pure, with a hand-moved clock. */

const policy = { retryBaseMs: 100, retryMaxMs: 10_000, retryAfterMaxMs: 60_000 };
function pacing(max = 4) {
  const clock = { t: 1_000_000 };
  // random() = 0.5: the backoff after n failed rounds is half of base x 2^(n-1).
  const p = new Pacing(max, policy, () => clock.t, () => 0.5);
  return { p, clock };
}

describe('pacing', () => {
  it('starts with one batch in flight and allows one more per answered batch, up to the maximum', () => {
    const { p } = pacing(4);
    expect(p.limit).toBe(1);
    for (const expected of [2, 3, 4, 4]) {
      p.answered(p.ticket());
      expect(p.limit).toBe(expected);
    }
    expect(p.delayMs()).toBe(0);
  });

  it('a failed attempt: back to one in flight, and nothing starts before the backoff has passed', () => {
    const { p, clock } = pacing();
    for (let i = 0; i < 3; i++) p.answered(p.ticket());
    p.failed(p.ticket(), undefined);
    expect(p.limit).toBe(1);
    expect(p.delayMs()).toBe(50);
    clock.t += 50;
    expect(p.delayMs()).toBe(0);
    p.failed(p.ticket(), undefined);
    expect(p.failedRounds).toBe(2);
    expect(p.delayMs()).toBe(100);
  });

  it('batches in flight together that all fail count as one failed round, not one per batch', () => {
    const { p } = pacing();
    for (let i = 0; i < 3; i++) p.answered(p.ticket());
    const tickets = [p.ticket(), p.ticket(), p.ticket(), p.ticket()];
    for (const t of tickets) p.failed(t, undefined);
    expect(p.failedRounds).toBe(1);
    expect(p.delayMs()).toBe(50);
  });

  it('an answer to a batch sent before the failure does not end the caution; one sent after it does', () => {
    const { p, clock } = pacing();
    for (let i = 0; i < 3; i++) p.answered(p.ticket());
    const before = p.ticket();
    const alsoBefore = p.ticket();
    p.failed(before, undefined);
    p.answered(alsoBefore);
    expect(p.limit).toBe(1);
    expect(p.failedRounds).toBe(1);
    clock.t += 1_000;
    p.answered(p.ticket());
    expect(p.failedRounds).toBe(0);
    expect(p.limit).toBe(2);
  });

  it('Retry-After is honoured (up to its cap), also when it comes with a batch sent before the failure', () => {
    const { p, clock } = pacing();
    const first = p.ticket();
    const second = p.ticket();
    p.failed(first, 2_000);
    expect(p.delayMs()).toBe(2_000);
    clock.t += 500;
    p.failed(second, 3_000);
    expect(p.failedRounds).toBe(1);
    expect(p.delayMs()).toBe(3_000);
    p.failed(p.ticket(), 600_000);
    expect(p.delayMs()).toBe(60_000);
  });

  it('a later, shorter backoff never shortens a pending wait', () => {
    const { p } = pacing();
    const first = p.ticket();
    const second = p.ticket();
    p.failed(first, 5_000);
    p.failed(second, 10);
    expect(p.delayMs()).toBe(5_000);
  });

  it('skipWait() (flush, a delivered fatal log) ends the wait; restartBackoff() (close) also restarts the exponent', () => {
    const { p } = pacing();
    for (let i = 0; i < 3; i++) p.failed(p.ticket(), undefined);
    expect(p.failedRounds).toBe(3);
    p.skipWait();
    expect(p.delayMs()).toBe(0);
    expect(p.failedRounds).toBe(3);
    p.failed(p.ticket(), undefined);
    p.restartBackoff();
    expect(p.delayMs()).toBe(0);
    expect(p.failedRounds).toBe(0);
    expect(p.limit).toBe(1);
  });
});
