import mammoth from 'mammoth';
import { checkCharacters, ExtractionFailed, type ExtractLimits } from './outcome.js';
import { checkInflatedSize } from './zip-bound.js';

/**
 * A DOCX's text with mammoth (its raw text: paragraphs apart by a blank line, table cells as paragraphs), after
 * the ZIP-bomb check (zip-bound.ts): mammoth inflates entries whole, so nothing reaches it unchecked. A ZIP
 * without a Word document in it, or a damaged one, is `unreadable`.
 */
export async function extractDocx(bytes: Buffer, limits: ExtractLimits): Promise<string> {
  checkInflatedSize(bytes, limits.maxInflatedBytes);
  let text: string;
  try {
    text = (await mammoth.extractRawText({ buffer: bytes })).value;
  } catch (err) {
    throw new ExtractionFailed('unreadable', `The DOCX file cannot be read: ${(err as Error).message}`);
  }
  checkCharacters(text.length, limits);
  return text;
}
