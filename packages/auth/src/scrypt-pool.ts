import type { ScryptOptions } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ScryptJob, ScryptReply } from './scrypt-worker.js';

/** The worker's compiled file: beside this one in dist/, or dist/'s copy when this runs from src/ (ts-jest). */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts') ? here.replace(/\/src\/scrypt-pool\.ts$/, '/dist/scrypt-worker.js') : here.replace(/scrypt-pool\.js$/, 'scrypt-worker.js');
}

export interface ScryptPool {
  derive(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer>;
  close(): Promise<void>;
}

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (key: Buffer) => void; reject: (err: Error) => void }>;
}

/**
 * scrypt on `size` threads of its own at nice `nice`, instead of libuv's shared pool at the process's priority. The
 * caller bounds how many derivations are in flight (passwords.ts's limiter, with the same `size`); jobs go to the
 * thread with the fewest pending. Threads start on first use, keep the process alive only while they have work, and one that dies
 * fails its pending jobs and is replaced on the next.
 */
export function createScryptPool({ size, nice }: { size: number; nice: number }): ScryptPool {
  const slots: Array<Slot | undefined> = new Array<Slot | undefined>(size).fill(undefined);
  let nextId = 1;
  const start = (index: number): Slot => {
    const worker = new Worker(workerFile(), { workerData: { nice } });
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (reply: ScryptReply) => {
      const job = slot.pending.get(reply.id);
      if (!job) return;
      slot.pending.delete(reply.id);
      // An idle thread does not keep the process alive; one with work does.
      if (slot.pending.size === 0) worker.unref();
      if ('key' in reply) job.resolve(Buffer.from(reply.key));
      else job.reject(new Error(reply.error));
    });
    const fail = (err: Error) => {
      if (slots[index] === slot) slots[index] = undefined;
      for (const job of slot.pending.values()) job.reject(err);
      slot.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the password hashing thread exited (${code})`)));
    slots[index] = slot;
    return slot;
  };
  const pick = (): Slot => {
    let best = 0;
    for (let i = 0; i < size; i++) {
      if (!slots[i]) return start(i);
      if (slots[i]!.pending.size < slots[best]!.pending.size) best = i;
    }
    return slots[best]!;
  };
  return {
    derive(password, salt, keyLength, options) {
      const slot = pick();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        slot.pending.set(id, { resolve, reject });
        slot.worker.ref();
        const job: ScryptJob = { id, password, salt, keyLength, options };
        slot.worker.postMessage(job);
      });
    },
    async close() {
      await Promise.all(slots.map((slot) => slot?.worker.terminate()));
    },
  };
}
