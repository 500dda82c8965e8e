import { extractDocx } from './docx.js';
import { extractHtml } from './html.js';
import { DEFAULT_LIMITS, ExtractionFailed, checkCharacters, type Extraction, type ExtractLimits } from './outcome.js';
import { extractPdf } from './pdf.js';
import { decodeText } from './text.js';

export const PDF = 'application/pdf';
export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Limits for one call: the defaults, any given, and the deadline from `timeoutMs` (or the one given). */
export function limitsOf(given: Partial<ExtractLimits> & { timeoutMs?: number } = {}): ExtractLimits {
  const { timeoutMs = DEFAULT_LIMITS.timeoutMs, ...rest } = given;
  return {
    maxPages: DEFAULT_LIMITS.maxPages,
    maxInflatedBytes: DEFAULT_LIMITS.maxInflatedBytes,
    maxCharacters: DEFAULT_LIMITS.maxCharacters,
    deadline: Date.now() + timeoutMs,
    ...rest,
  };
}

/** The content type without its parameters (`text/plain; charset=utf-8` -> `text/plain`), lower case. */
const mediaTypeOf = (contentType: string): string => contentType.split(';')[0]!.trim().toLowerCase();

/**
 * A stored document's text, by the content type the upload decided (services/ai detect): PDF per page, DOCX,
 * HTML as rendered text, every other type as text (Markdown, CSV, JSON, YAML, XML and plain text are read as they
 * are). Never throws for a bad document: every failure is an ExtractionFailure with its code. Text that is only
 * white space is `no_text`. Runs on the caller's thread: the AI worker calls it off the event loops that serve
 * requests, and enforces the deadline there too (a synchronous step, such as a DOCX's inflation, cannot stop
 * half-way).
 */
export async function extractDocument(bytes: Buffer, contentType: string, limits: ExtractLimits = limitsOf()): Promise<Extraction> {
  try {
    const type = mediaTypeOf(contentType);
    if (type === PDF) {
      const pages = await extractPdf(bytes, limits);
      return { ok: true, text: pages.join('\n\n'), pages };
    }
    const text = type === DOCX ? await extractDocx(bytes, limits) : type === 'text/html' ? extractHtml(bytes) : decodeText(bytes).text;
    checkCharacters(text.length, limits);
    if (text.trim() === '') return { ok: false, code: 'no_text', message: type === DOCX ? 'The document holds no text.' : 'The file holds only white space.' };
    return { ok: true, text };
  } catch (err) {
    if (err instanceof ExtractionFailed) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}


