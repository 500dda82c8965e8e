import { describe, expect, it } from '@jest/globals';
import { deadlineOf } from '../src/mongo/budget.js';

/**
 * A MongoDB read whose caller has gone (ReadBudget.signal) stops before its next query or batch: the deadline
 * that every query asks for its `maxTimeMS`, and that the read checks between batches, throws the signal's reason.
 */
describe('mongo read deadline and the caller signal', () => {
  it.each([['with a budget', 60_000], ['without a budget', undefined]])('throws once the signal is aborted, %s', (_name, budgetMs) => {
    const caller = new AbortController();
    const deadline = deadlineOf(budgetMs, Date.now, caller.signal);
    expect(() => deadline.check()).not.toThrow();
    expect(() => deadline.maxTime()).not.toThrow();
    const gone = new Error('The client went away.');
    caller.abort(gone);
    expect(() => deadline.check()).toThrow(gone);
    expect(() => deadline.maxTime()).toThrow(gone);
  });
});
