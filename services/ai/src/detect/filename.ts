const MAX_LENGTH = 200;
const MAX_EXTENSION = 16;
const FALLBACK = 'document';

/**
 * The client's filename made safe to keep as metadata (it never becomes a path or an object key): the
 * basename only (after the last `/` or `\`), NFC, with only letters (any script), combining marks,
 * digits, space and `. _ - ( )` kept; control characters and everything else removed, runs of dots and
 * spaces collapsed, no leading or trailing dot or space, at most 200 UTF-16 units (the extension kept when
 * cutting), never empty ("document").
 */
export function sanitizeFilename(name: string): string {
  const base = String(name ?? '').split(/[\\/]/).pop() ?? '';
  const clean = tidy(
    base
      .normalize('NFC')
      .replace(/\p{Zs}/gu, ' ')
      .replace(/[^\p{L}\p{M}\p{N} ._\-()]/gu, ''),
  );
  return shorten(clean) || FALLBACK;
}

function tidy(s: string): string {
  return s
    .replace(/\.{2,}/g, '.')
    .replace(/ {2,}/g, ' ')
    .replace(/^[. ]+/, '')
    .replace(/[. ]+$/, '');
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
