import chardet from 'chardet';
import iconv from 'iconv-lite';
import { ExtractionFailed } from './outcome.js';

/**
 * Text files to a string, in this order:
 * 1. a byte-order mark decides: UTF-8 (the mark dropped), UTF-16 LE or BE (Windows Notepad's "Unicode");
 * 2. a NUL byte without a UTF-16 mark is not text (`unreadable`; the upload refuses it first, with 415);
 * 3. strict UTF-8 (every byte sequence valid);
 * 4. detection (chardet), taken when its best guess has a confidence of at least MIN_CONFIDENCE and leads the
 *    next guess by MIN_LEAD: single-byte detectors are weak on short text (a Latin-1 "Café Zürich, naïve" reads
 *    as ISO-8859-2 at 30 against ISO-8859-1 at 20), and a wrong guess turns letters into others silently;
 * 5. else windows-1252, what browsers read for ISO-8859-1 too: every byte is a character, so Latin-1 and
 *    Windows text keep their accented letters, and other text degrades letter by letter, never fails.
 */
export const MIN_CONFIDENCE = 35;
export const MIN_LEAD = 10;
const FALLBACK = 'windows-1252';
/** Detected names read as windows-1252, its superset for every printable character. */
const AS_FALLBACK = new Set(['iso-8859-1', 'windows-1252', 'ascii']);

export interface DecodedText {
  text: string;
  /** The encoding the bytes were read in (`utf-8`, `utf-16le`, `utf-16be`, or a detected or fallback name). */
  encoding: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The encoding named by a byte-order mark, and the mark's length. */
function byteOrderMark(bytes: Uint8Array): { encoding: 'utf-8' | 'utf-16le' | 'utf-16be'; length: number } | undefined {
  const [a, b, c] = bytes;
  if (a === 0xef && b === 0xbb && c === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (a === 0xff && b === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (a === 0xfe && b === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/** The detected encoding, when the detection is sure enough (see above), as iconv-lite names it. */
export function detectedEncoding(bytes: Uint8Array): string | undefined {
  const [best, next] = chardet.analyse(bytes);
  if (!best || best.confidence < MIN_CONFIDENCE || best.confidence - (next?.confidence ?? 0) < MIN_LEAD) return undefined;
  const name = best.name.toLowerCase();
  if (AS_FALLBACK.has(name) || name.startsWith('utf-') || !iconv.encodingExists(name)) return undefined;
  return name;
}

/** A text document's bytes as text (see above). */
export function decodeText(bytes: Uint8Array): DecodedText {
  const bom = byteOrderMark(bytes);
  const body = bom ? bytes.subarray(bom.length) : bytes;
  if (bom) {
    // The mark decides; a malformed sequence after it becomes U+FFFD rather than failing the whole document.
    const text = new TextDecoder(bom.encoding, { ignoreBOM: true }).decode(body);
    return { text, encoding: bom.encoding };
  }
  // Before UTF-8: NUL is valid UTF-8, and UTF-16 without its mark would pass as text with a NUL in every letter.
  if (body.includes(0)) throw new ExtractionFailed('unreadable', 'The file holds NUL bytes without a UTF-16 byte-order mark: it is not text.');
  const text = strictUtf8(body);
  if (text !== undefined) return { text, encoding: 'utf-8' };
  const encoding = detectedEncoding(body) ?? FALLBACK;
  return { text: iconv.decode(Buffer.from(body.buffer, body.byteOffset, body.byteLength), encoding), encoding };
}
