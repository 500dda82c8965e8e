const MAX_LENGTH = 200;
const MAX_EXTENSION = 16;
/** The basename is cut to its first HEAD_KEPT and last TAIL_KEPT UTF-16 units before any pattern sees it. */
const HEAD_KEPT = 960;
const TAIL_KEPT = 64;
const FALLBACK = 'document';

/**
 * The client's filename made safe to keep as metadata (it never becomes a path or an object key): the
 * basename only (after the last `/` or `\`), NFC, with only letters (any script), combining marks,
 * digits, space and `. _ - ( )` kept; control characters and everything else removed, runs of dots and
 * spaces collapsed, no leading or trailing dot or space, at most 200 UTF-16 units (the extension kept when
 * cutting), never empty ("document").
 *
 * Linear in the input: the basename is bounded to 1,024 units (its head and its tail, where the extension is)
 * before the two character-class replacements run, and the trims are loops, not patterns that backtrack.
 */
export function sanitizeFilename(name: string): string {
  const base = bounded(basename(String(name ?? '')));
  const clean = tidy(
    base
      .normalize('NFC')
      .replace(/\p{Zs}/gu, ' ')
      .replace(/[^\p{L}\p{M}\p{N} ._\-()]/gu, ''),
  );
  return shorten(clean) || FALLBACK;
}

function basename(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** A half surrogate pair at either cut is removed by the character filter that follows. */
function bounded(s: string): string {
  return s.length <= HEAD_KEPT + TAIL_KEPT ? s : s.slice(0, HEAD_KEPT) + s.slice(-TAIL_KEPT);
}

const isDotOrSpace = (c: string | undefined) => c === '.' || c === ' ';

/** Runs of dots and runs of spaces collapsed to one, then leading and trailing dots and spaces removed. */
function tidy(s: string): string {
  let out = '';
  let last = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === last && isDotOrSpace(c)) continue;
    out += c;
    last = c;
  }
  let start = 0;
  let end = out.length;
  while (start < end && isDotOrSpace(out[start])) start++;
  while (end > start && isDotOrSpace(out[end - 1])) end--;
  return out.slice(start, end);
}

function shorten(s: string): string {
  if (s.length <= MAX_LENGTH) return s;
  const dot = s.lastIndexOf('.');
  const ext = dot > 0 && s.length - dot <= MAX_EXTENSION ? s.slice(dot) : '';
  return tidy(cut(s.slice(0, s.length - ext.length), MAX_LENGTH - ext.length)) + ext;
}

/** The longest prefix of whole code points within `max` UTF-16 units (never half a surrogate pair). */
function cut(s: string, max: number): string {
  let out = '';
  for (const ch of s) {
    if (out.length + ch.length > max) break;
    out += ch;
  }
  return out;
}
