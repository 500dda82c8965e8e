import { scryptSync, type ScryptOptions } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

/** One derivation asked of this thread (scrypt-pool.ts). */
export interface ScryptJob {
  id: number;
  password: string;
  salt: Uint8Array;
  keyLength: number;
  options: ScryptOptions;
}

export type ScryptReply = { id: number; key: Uint8Array } | { id: number; error: string };

const port = parentPort!;
const { nice } = workerData as { nice: number };

/**
 * This thread's nice value (Linux: a thread is its own scheduling entity, named by its id in /proc/thread-self):
 * password hashes run below the request thread, so that on a small machine busy hashing a login flood's checks the
 * event loop still gets a core when it has work (the /healthz probe of bench/abuse). Elsewhere, or if refused, the
 * process's priority.
 */
if (nice !== 0) {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch {
    // not Linux, or not allowed
  }
}

port.on('message', (job: ScryptJob) => {
  let reply: ScryptReply;
  try {
    const key = scryptSync(job.password, job.salt, job.keyLength, job.options);
    reply = { id: job.id, key };
  } catch (err) {
    reply = { id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
