const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * True when the raw UTF-8 JSON text nests arrays and objects deeper than `maxDepth`. One pass over the bytes,
 * no allocation: a bracket inside a string (escapes respected) does not count, and a byte of a multi-byte
 * UTF-8 character is never an ASCII bracket, quote or backslash. It does not validate: malformed text is left
 * to the parser, which then sees only bodies of bounded depth. Stops at the first level past the bound.
 */
export function nestedDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
