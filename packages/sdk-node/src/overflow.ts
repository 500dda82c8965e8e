import { randomUUID } from 'node:crypto';
import type { Batch } from './queue.js';
import { LanternError, type DropReason, type Kind, type Reporter } from './report.js';
import type { Spool, SpoolWrite } from './spool.js';

/**
 * Items that arrive while the in-memory buffer is full, on their way to the spool directory: gathered into
 * batches of `maxBatchSize` and written one file at a time. Memory stays bounded even when the disk is slower
 * than the application: while one batch is being written, the next full one is written synchronously (the
 * application waits a moment, nothing is lost within the quota). At most 2 x maxBatchSize items wait here.
 */
export class SpoolOverflow {
  private items: string[] = [];
  private bytes = 0;
  private readonly writing = new Set<Batch>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly kind: Kind,
    private readonly spool: Spool,
    private readonly reporter: Reporter,
    private readonly limits: { maxBatchSize: number; maxBatchBytes: number },
    private readonly onSpooled: (count: number) => void,
    private readonly onDrop: (count: number, reason: DropReason, sync?: boolean) => void,
  ) {}

  /** Items held in memory here (gathering or being written). */
  get size(): number {
    return this.items.length + this.writingCount();
  }

  private writingCount(): number {
    let n = 0;
    for (const b of this.writing) n += b.items.length;
    return n;
  }

  /** Takes an item; it is written with the next full batch. */
  add(json: string, bytes: number): void {
    this.items.push(json);
    this.bytes += bytes;
    if (this.items.length < this.limits.maxBatchSize && this.bytes + 64 <= this.limits.maxBatchBytes) return;
    if (this.writing.size > 0) this.writeGatheredSync();
    else this.writeGathered();
  }

  private writeGatheredSync(): void {
    const batch: Batch = { key: randomUUID(), items: this.items, bytes: this.bytes };
    this.items = [];
    this.bytes = 0;
    this.note(batch, this.spool.writeSync(this.kind, batch));
  }

  private writeGathered(): void {
    if (this.items.length === 0) return;
    const batch: Batch = { key: randomUUID(), items: this.items, bytes: this.bytes };
    this.items = [];
    this.bytes = 0;
    this.writing.add(batch);
    this.chain = this.chain.then(async () => {
      if (!this.writing.has(batch)) return; // already written synchronously at exit
      const result = await this.spool.write(this.kind, batch);
      if (this.writing.delete(batch)) this.note(batch, result);
    });
  }

  /** Writes a batch (from memory, at close) to the spool and counts the outcome. */
  async write(batch: Batch): Promise<void> {
    this.note(batch, await this.spool.write(this.kind, batch));
  }

  /** Writes what is gathered and waits for every write. */
  async settle(): Promise<void> {
    this.writeGathered();
    await this.chain;
  }

  /** Process exit: writes everything (the given batches, what is gathered, what is being written) synchronously. */
  writeAllSync(batches: Batch[]): void {
    const all = [...batches, ...this.writing];
    if (this.items.length > 0) all.push({ key: randomUUID(), items: this.items, bytes: this.bytes });
    this.items = [];
    this.bytes = 0;
    this.writing.clear();
    for (const batch of all) this.note(batch, this.spool.writeSync(this.kind, batch), true);
  }

  private note(batch: Batch, result: SpoolWrite, sync = false): void {
    const n = batch.items.length;
    if (result === 'ok') return this.onSpooled(n);
    if (result === 'error') {
      this.reporter.error(new LanternError('spool', `could not write ${n} ${this.kind} items to the spool directory ${this.spool.dir}`, { kind: this.kind, count: n }));
    }
    this.onDrop(n, result === 'full' ? 'spool_full' : 'spool_error', sync);
  }
}
