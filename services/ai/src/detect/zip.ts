const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;

export interface ZipListing {
  /** Entry names, in archive order. */
  names: string[];
  /**
   * Whether `names` is every entry (read from the central directory in the tail). When the central
   * directory is not entirely in the tail (or the archive is cut or ZIP64), the names come from the local
   * file headers that fit in the head, which may be only the first few.
   */
  complete: boolean;
  /** The text of a stored first entry named `mimetype` (OpenDocument, EPUB), if there is one. */
  mimetype?: string;
}

export const isZip = (head: Buffer): boolean => head.length >= 4 && head.readUInt32LE(0) === LOCAL_HEADER;

/** Lists a ZIP's entries from what the inspector kept: its first 8 KiB (head) and last 64 KiB (tail). */
export function listZip(head: Buffer, tail: Buffer): ZipListing {
  const local = fromLocalHeaders(head);
  const central = fromCentralDirectory(tail);
  return {
    names: central ?? local.names,
    complete: central !== undefined,
    ...(local.mimetype !== undefined ? { mimetype: local.mimetype } : {}),
  };
}

/** Finds the End Of Central Directory record at the end of `tail`, then reads the names it points to. */
function fromCentralDirectory(tail: Buffer): string[] | undefined {
  const lowest = Math.max(0, tail.length - EOCD_SIZE - MAX_COMMENT);
  for (let p = tail.length - EOCD_SIZE; p >= lowest; p--) {
    if (tail.readUInt32LE(p) !== END_OF_CENTRAL_DIRECTORY) continue;
    if (p + EOCD_SIZE + tail.readUInt16LE(p + 20) > tail.length) continue; // not a real EOCD: comment overruns
    const entries = tail.readUInt16LE(p + 10);
    const cdSize = tail.readUInt32LE(p + 12);
    if (entries === 0xffff || cdSize === 0xffffffff) return undefined; // ZIP64: not needed for 10 MB uploads
    // The directory ends where the EOCD starts; counting back from it (rather than trusting the recorded
    // offset) also works for archives with bytes prepended (self-extracting).
    const start = p - cdSize;
    if (start < 0) return undefined; // the directory starts before the tail
    return readCentralEntries(tail, start, p, entries);
  }
  return undefined;
}

function readCentralEntries(buf: Buffer, start: number, end: number, entries: number): string[] | undefined {
  const names: string[] = [];
  let pos = start;
  for (let i = 0; i < entries; i++) {
    if (pos + 46 > end || buf.readUInt32LE(pos) !== CENTRAL_HEADER) return undefined;
    const nameLength = buf.readUInt16LE(pos + 28);
    const next = pos + 46 + nameLength + buf.readUInt16LE(pos + 30) + buf.readUInt16LE(pos + 32);
    if (next > end) return undefined;
    names.push(buf.toString('utf8', pos + 46, pos + 46 + nameLength));
    pos = next;
  }
  return names;
}

/** Walks the local file headers from the start as far as the head goes. */
function fromLocalHeaders(head: Buffer): { names: string[]; mimetype?: string } {
  const names: string[] = [];
  let mimetype: string | undefined;
  let pos = 0;
  while (pos + 30 <= head.length && head.readUInt32LE(pos) === LOCAL_HEADER) {
    const flags = head.readUInt16LE(pos + 6);
    const method = head.readUInt16LE(pos + 8);
    const compressedSize = head.readUInt32LE(pos + 18);
    const nameLength = head.readUInt16LE(pos + 26);
    const dataStart = pos + 30 + nameLength + head.readUInt16LE(pos + 28);
    if (pos + 30 + nameLength > head.length) break;
    const name = head.toString('utf8', pos + 30, pos + 30 + nameLength);
    names.push(name);
    if (names.length === 1 && name === 'mimetype' && method === 0 && compressedSize <= 200 && dataStart + compressedSize <= head.length) {
      mimetype = head.toString('latin1', dataStart, dataStart + compressedSize).trim();
    }
    // With a data descriptor (flag bit 3) the sizes come after the data: the next header cannot be found.
    if (flags & 0x08 && compressedSize === 0) break;
    pos = dataStart + compressedSize;
  }
  return mimetype !== undefined ? { names, mimetype } : { names };
}
