import { inflateRawSync } from 'node:zlib';
import { ExtractionFailed } from './outcome.js';

/**
 * The ZIP-bomb check of a DOCX, before any ZIP library opens it: the central directory is read (entry count,
 * methods, sizes, where each entry's data is), and every entry is inflated with zlib's `maxOutputLength` set to
 * what is left of the bound, so no entry, whatever size it declares, can inflate past it. A DOCX whose entries
 * together inflate past `maxInflatedBytes` is `too_large`; a ZIP whose directory cannot be read is `unreadable`.
 * The inflated bytes are dropped at once: memory stays within one entry's bound.
 */
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
/** More entries than any Word document has (a document, styles, a few hundred images at most). */
export const MAX_ENTRIES = 10_000;

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localOffset: number;
}

const unreadable = (why: string) => new ExtractionFailed('unreadable', `The DOCX file is damaged: ${why}.`);

function endOfCentralDirectory(zip: Buffer): number {
  const from = Math.max(0, zip.length - EOCD_SIZE - MAX_COMMENT);
  for (let at = zip.length - EOCD_SIZE; at >= from; at--) if (zip.readUInt32LE(at) === EOCD) return at;
  throw unreadable('its ZIP directory is missing (the file may be cut off)');
}

/**
 * The central directory's entries, read strictly, since the ZIP library that opens the file afterwards (JSZip, in
 * mammoth) reads it its own way: it walks every directory record it finds whatever count the end record declares,
 * and takes bytes before the directory's declared place as data prepended to the archive, shifting every offset.
 * So the directory must end exactly where the end record begins, hold exactly the declared count of records, and
 * nothing may stand before the first local header: any other archive is `unreadable` here, never half-checked.
 */
export function zipEntries(zip: Buffer): Entry[] {
  const eocd = endOfCentralDirectory(zip);
  const count = zip.readUInt16LE(eocd + 10);
  const size = zip.readUInt32LE(eocd + 12);
  const offset = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff || size === 0xffffffff) throw unreadable('it is a ZIP64 archive, which a Word document never needs');
  if (count > MAX_ENTRIES) throw new ExtractionFailed('too_large', `The DOCX file holds ${count} entries; at most ${MAX_ENTRIES} are read.`);
  if (count === 0) throw unreadable('its ZIP directory lists no entry');
  if (offset + size !== eocd) throw unreadable('its ZIP directory does not end where the archive says (bytes before or after it)');
  if (zip.length < 4 || zip.readUInt32LE(0) !== LOCAL) throw unreadable('it does not begin with a ZIP entry');
  const entries: Entry[] = [];
  let at = offset;
  while (at < eocd) {
    if (at + 46 > eocd || zip.readUInt32LE(at) !== CENTRAL) throw unreadable('an entry of its ZIP directory is broken');
    if (entries.length === count) throw unreadable('its ZIP directory holds more entries than it declares');
    const nameLength = zip.readUInt16LE(at + 28);
    const next = at + 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (next > eocd) throw unreadable('an entry of its ZIP directory is broken');
    entries.push({
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      uncompressedSize: zip.readUInt32LE(at + 24),
      localOffset: zip.readUInt32LE(at + 42),
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
    });
    at = next;
  }
  if (entries.length !== count) throw unreadable(`its ZIP directory holds ${entries.length} entries where it declares ${count}`);
  return entries;
}

/** An entry's compressed bytes, found through its local header. */
function dataOf(zip: Buffer, e: Entry): Buffer {
  const at = e.localOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL) throw unreadable(`the entry ${JSON.stringify(e.name)} is missing`);
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  if (start + e.compressedSize > zip.length) throw unreadable(`the entry ${JSON.stringify(e.name)} is cut off`);
  return zip.subarray(start, start + e.compressedSize);
}

/** Inflates every entry within what is left of `maxInflatedBytes`; throws too_large past it. Returns the total. */
export function checkInflatedSize(zip: Buffer, maxInflatedBytes: number): number {
  const tooLarge = () => new ExtractionFailed('too_large', `The DOCX file expands to more than ${maxInflatedBytes} bytes, the most one document may expand to.`);
  let total = 0;
  for (const e of zipEntries(zip)) {
    const left = maxInflatedBytes - total;
    if (e.method === 0) {
      total += e.compressedSize;
    } else if (e.method === 8) {
      try {
        total += inflateRawSync(dataOf(zip, e), { maxOutputLength: Math.max(1, left + 1) }).length;
      } catch (err) {
        if (err instanceof RangeError || (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
        throw unreadable(`the entry ${JSON.stringify(e.name)} cannot be inflated`);
      }
    } else {
      throw unreadable(`the entry ${JSON.stringify(e.name)} uses compression method ${e.method}`);
    }
    if (total > maxInflatedBytes) throw tooLarge();
  }
  return total;
}
