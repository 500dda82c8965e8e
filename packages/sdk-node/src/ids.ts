import { randomFillSync } from 'node:crypto';
import { startupSnapshot } from 'node:v8';

/**
 * Span and trace ids: random (version 4) UUIDs, as `crypto.randomUUID()` makes them, but each one a flat string of
 * its own. `randomUUID()` joins 20 pieces with `+`, so its result is a tree of about 20 string objects until
 * something flattens it. An id lives as long as its span, so with requests in flight those trees are copied by every
 * young-generation GC, and every span's JSON flattens them again.
 *
 * Here the random bytes for IDS_PER_FILL ids come from one `randomFillSync` (the same CSPRNG as randomUUID, which
 * also buffers its entropy), are written as text into one buffer, and each id is copied out of it by
 * `toString('latin1', …)`: a new string of 36 characters that shares nothing with the buffer (not a V8 sliced string, which
 * would keep a whole pool alive for as long as any one id is kept).
 */
const IDS_PER_FILL = 128;
const random = Buffer.alloc(16 * IDS_PER_FILL);
const text = Buffer.alloc(36 * IDS_PER_FILL);
/** Two ASCII codes per byte value: its lower-case hex digits. */
const HEX = new Uint8Array(512);
for (let b = 0; b < 256; b++) {
  const digits = b.toString(16).padStart(2, '0');
  HEX[2 * b] = digits.charCodeAt(0);
  HEX[2 * b + 1] = digits.charCodeAt(1);
}
const DASH = 45;
let nextId = IDS_PER_FILL;

function refill(): void {
  randomFillSync(random);
  let out = 0;
  for (let id = 0; id < IDS_PER_FILL; id++) {
    const r = id * 16;
    random[r + 6] = (random[r + 6]! & 0x0f) | 0x40; // version 4
    random[r + 8] = (random[r + 8]! & 0x3f) | 0x80; // variant 10xx (RFC 9562)
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) text[out++] = DASH;
      const b = random[r + i]!;
      text[out++] = HEX[2 * b]!;
      text[out++] = HEX[2 * b + 1]!;
    }
  }
  nextId = 0;
}

// In a startup snapshot (`node --build-snapshot`, single executable applications) the ids left in the pool would
// be the first ids of every process started from it: such a process starts with an empty pool.
if (startupSnapshot?.isBuildingSnapshot?.()) {
  startupSnapshot.addDeserializeCallback(() => {
    nextId = IDS_PER_FILL;
  });
}

/** A new random UUID (version 4), lower-case, `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`. */
export function newId(): string {
  if (nextId === IDS_PER_FILL) refill();
  const start = 36 * nextId++;
  return text.toString('latin1', start, start + 36);
}
