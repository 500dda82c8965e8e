import { describe, expect, it } from '@jest/globals';
import { SendLoop, type Attempt, type BatchSource } from '../src/send-loop.js';

/**
 * The send loop against a source of its own: items in memory, batches of at most `size`, and, when memory has
 * nothing to give, a read of an empty spool that takes `readMs`, so what happens during that read can be tested.
 */
function fakeSource({ size, readMs }: { size: number; readMs: number }) {
  const memory: number[] = [];
  const sent: number[][] = [];
  const source: BatchSource = {
    async next(all) {
      // Like the exporter: memory first; when it has nothing to give, the spool is read (slowly) and has nothing.
      if (memory.length === 0 || (!all && memory.length < size)) {
        await new Promise((resolve) => setTimeout(resolve, readMs));
        return undefined;
      }
      const batch = memory.splice(0, size);
      const attempt: Attempt = async () => {
        sent.push(batch);
        return { retry: false };
      };
      return attempt;
    },
    ready: (all) => (all ? memory.length > 0 : memory.length >= size),
    readingSpool: () => false,
  };
  const loop = new SendLoop(source, { maxConcurrentBatches: 4, retryBaseMs: 10, retryMaxMs: 100, retryAfterMaxMs: 1000 }, (run) => run(), (what, error) => {
    throw new Error(`${what}: ${String(error)}`);
  });
  return { memory, sent, loop };
}

describe('send loop', () => {
  it('flush() asked while a read is pending sends what was recorded before it, before resolving', async () => {
    const { memory, sent, loop } = fakeSource({ size: 10, readMs: 60 });
    memory.push(...Array.from({ length: 10 }, (_, i) => i));
    const first = loop.flush();
    // The first batch has been taken and the loop is reading again (it finds nothing): seven items arrive, and
    // flush() is asked for them during that read.
    await new Promise((resolve) => setTimeout(resolve, 30));
    memory.push(10, 11, 12, 13, 14, 15, 16);
    const second = loop.flush();
    await Promise.all([first, second]);
    expect(sent.flat()).toEqual(Array.from({ length: 17 }, (_, i) => i));
    expect(memory).toEqual([]);
  });

  it('after everything asked for has gone, a partial batch waits for the next ask instead of going at once', async () => {
    const { memory, sent, loop } = fakeSource({ size: 10, readMs: 1 });
    memory.push(1, 2, 3);
    await loop.flush();
    expect(sent).toEqual([[1, 2, 3]]);
    memory.push(4, 5);
    loop.kick(false);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sent).toEqual([[1, 2, 3]]);
    loop.kick(true);
    await loop.flush();
    expect(sent).toEqual([[1, 2, 3], [4, 5]]);
  });
});
