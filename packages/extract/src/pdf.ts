import { getDocumentProxy } from 'unpdf';
import { checkCharacters, checkDeadline, ExtractionFailed, type ExtractLimits, NO_TEXT_LAYER } from './outcome.js';

/**
 * A PDF's text page by page with pdf.js (through unpdf 1.7, the last release that runs on Node 20: see
 * docs/architecture.md). Pages are read one at a time, so the deadline and the character bound are checked between
 * them and a page's resources go before the next; more than `maxPages` pages is `too_large` before any is read.
 * Failures: a PDF that needs a password to open is `encrypted` (one with an owner password only opens and is
 * read); one that pdf.js cannot parse (cut off, damaged) is `unreadable`; one whose pages hold no text at all (a
 * scan) is `no_text`.
 */
const OPTIONS = {
  // No fonts are rendered: no system fonts looked up, no font code compiled, nothing printed on the console.
  isEvalSupported: false,
  useSystemFonts: false,
  disableFontFace: true,
  verbosity: 0,
};

/** One page's text: pdf.js's items, a line break where it marks an end of line, runs of spaces as one. */
function pageText(items: readonly object[]): string {
  let text = '';
  for (const item of items) {
    const { str, hasEOL } = item as { str?: string; hasEOL?: boolean };
    if (typeof str === 'string') text += str;
    if (hasEOL) text += '\n';
  }
  return text.replace(/[^\S\n]+/g, ' ').replace(/ ?\n ?/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}

function failureOf(err: unknown): ExtractionFailed {
  if (err instanceof ExtractionFailed) return err;
  const name = (err as Error | undefined)?.name;
  if (name === 'PasswordException') {
    return new ExtractionFailed('encrypted', 'The PDF is protected by a password, so its text cannot be read. Upload a copy without the password.');
  }
  return new ExtractionFailed('unreadable', `The PDF cannot be read: it is damaged or cut off (${(err as Error | undefined)?.message ?? String(err)}).`);
}

export async function extractPdf(bytes: Uint8Array, limits: ExtractLimits): Promise<string[]> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // A copy: pdf.js may take over (detach) the buffer it is given.
    pdf = await getDocumentProxy(new Uint8Array(bytes), OPTIONS);
  } catch (err) {
    throw failureOf(err);
  }
  try {
    if (pdf.numPages > limits.maxPages) {
      throw new ExtractionFailed('too_large', `The PDF has ${pdf.numPages} pages; at most ${limits.maxPages} are read.`);
    }
    const pages: string[] = [];
    let characters = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      checkDeadline(limits);
      const page = await pdf.getPage(n);
      const text = pageText((await page.getTextContent()).items);
      page.cleanup();
      pages.push(text);
      characters += text.length;
      checkCharacters(characters, limits);
    }
    // The message is the contract's, word for word.
    if (pages.every((p) => p === '')) throw new ExtractionFailed('no_text', NO_TEXT_LAYER);
    return pages;
  } catch (err) {
    throw failureOf(err);
  } finally {
    await pdf.destroy();
  }
}
