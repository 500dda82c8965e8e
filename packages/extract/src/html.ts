import { convert } from 'html-to-text';
import { decodeText } from './text.js';

/**
 * An HTML document's text with html-to-text: the bytes decoded as any text file (text.ts), then the markup
 * read as a browser shows it. No line wrapping (chunks are cut by tokens later), link targets and images left
 * out (a URL is no passage to find), headings kept in their case.
 */
const OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'h5', options: { uppercase: false } },
    { selector: 'h6', options: { uppercase: false } },
    { selector: 'table', options: { uppercaseHeaderCells: false } },
  ],
};

export function extractHtml(bytes: Uint8Array): string {
  return convert(decodeText(bytes).text, OPTIONS);
}
