import { randomUUID } from 'node:crypto';

/** Items serialised once, when recorded; a batch keeps its Idempotency-Key for every attempt. */
export interface Batch {
  key: string;
  items: string[];
  bytes: number;
  /** The envelope's flush time, fixed at the first attempt so that every retry is the same request. */
  sentAt?: string;
  /** Order in which batches were taken from the queue; batches made elsewhere (a fatal log) have none. */
  seq?: number;
}

/**
 * A batch's request body, `{"timestamp":…,"<kind>":[…]}`, written item by item into one buffer of the size the
 * items' byte counts give. Joining the items into one string first would copy every byte twice more (the joined
 * string, then the body string flattened and encoded as UTF-8), each time into a new large object. When the items
 * have as many bytes as characters they are all ASCII (the usual case: ids, numbers, a timestamp, paths) and are
 * copied as Latin-1, which for ASCII is the same bytes, without UTF-8's encoding loop. That relies on `bytes` being
 * the items' UTF-8 byte count, which every maker of a Batch computes with Buffer.byteLength.
 */
export function batchBody(kind: string, sentAt: string, batch: Batch): Buffer {
  const head = `{"timestamp":"${sentAt}","${kind}":[`;
  const { items } = batch;
  let chars = 0;
  for (let i = 0; i < items.length; i++) chars += items[i]!.length;
  const encoding = chars === batch.bytes ? 'latin1' : 'utf8';
  const size = Buffer.byteLength(head) + batch.bytes + Math.max(0, items.length - 1) + 2;
  const out = Buffer.allocUnsafe(size);
  let at = out.write(head, 0);
  for (let i = 0; i < items.length && at < size; i++) {
    if (i > 0) out[at++] = 0x2c; // ,
    at += out.write(items[i]!, at, encoding);
  }
  if (at + 2 !== size) {
    // `bytes` did not add up to what was written (it always should): the slower way. A count that is wrong yet
    // adds up (non-ASCII items counted as one byte a character) is not caught here: `bytes` must be right.
    return Buffer.from(`${head}${items.join(',')}]}`, 'utf8');
  }
  out[at++] = 0x5d; // ]
  out[at] = 0x7d; // }
  return out;
}

/**
 * The bounded in-memory buffer of one kind. The bound counts the batches being sent too, so a failed batch can
 * always go back to the front without exceeding it. A batch that went back keeps its items and its key: a
 * retry is byte-for-byte the same request, which the service deduplicates by key. Batches that fail while
 * several are in flight go back in the order they were first taken, whatever order their answers came in.
 */
export class BoundedQueue {
  private items: string[] = [];
  private sizes: number[] = [];
  private head = 0;
  private front: Batch[] = [];
  private frontCount = 0;
  private taken = 0;
  private seq = 0;

  constructor(private readonly maxItems: number) {}

  /** Items waiting (batches that went back to the front included), not counting those being sent. */
  get waiting(): number {
    return this.items.length - this.head + this.frontCount;
  }

  /** Items of batches taken and not yet settled or put back. */
  get inFlight(): number {
    return this.taken;
  }

  get full(): boolean {
    return this.waiting + this.taken >= this.maxItems;
  }

  /** A batch put back, or at least `maxItems` items, is waiting. */
  fullBatchReady(maxItems: number): boolean {
    return this.front.length > 0 || this.items.length - this.head >= maxItems;
  }

  /** Adds an item at the back; false when the bound is reached (the caller counts or spools it). */
  push(json: string, bytes: number): boolean {
    if (this.full) return false;
    this.items.push(json);
    this.sizes.push(bytes);
    return true;
  }

  /** The next batch: a batch put back first, else up to `maxItems` items and `maxBytes` bytes (at least one item). */
  take(maxItems: number, maxBytes: number): Batch | undefined {
    const again = this.front.shift();
    if (again) {
      this.frontCount -= again.items.length;
      this.taken += again.items.length;
      return again;
    }
    const available = this.items.length - this.head;
    if (available === 0) return undefined;
    let n = 0;
    let bytes = 0;
    while (n < available && n < maxItems) {
      const size = this.sizes[this.head + n]!;
      if (n > 0 && bytes + size > maxBytes) break;
      bytes += size;
      n++;
    }
    const batch: Batch = { key: randomUUID(), items: this.items.slice(this.head, this.head + n), bytes, seq: this.seq++ };
    this.head += n;
    this.compact();
    this.taken += n;
    return batch;
  }

  /** Counts a batch made outside the queue (a fatal log sent at once) as in flight; false when full. */
  reserve(batch: Batch): boolean {
    if (this.full) return false;
    this.taken += batch.items.length;
    return true;
  }

  /** The batch was delivered or given up. */
  settle(batch: Batch): void {
    this.taken -= batch.items.length;
  }

  /** The batch failed: back to the front (before batches taken after it), same items, same key. */
  putBack(batch: Batch): void {
    this.taken -= batch.items.length;
    const seq = batch.seq ?? -1;
    let at = 0;
    while (at < this.front.length && (this.front[at]!.seq ?? -1) < seq) at++;
    this.front.splice(at, 0, batch);
    this.frontCount += batch.items.length;
  }

  /** Everything waiting, as batches (those put back keep their keys); the queue is left empty. */
  drain(maxItems: number, maxBytes: number): Batch[] {
    const out: Batch[] = [];
    for (let b = this.take(maxItems, maxBytes); b; b = this.take(maxItems, maxBytes)) {
      this.settle(b);
      out.push(b);
    }
    return out;
  }

  private compact(): void {
    if (this.head === this.items.length) {
      this.items = [];
      this.sizes = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
  }
}
