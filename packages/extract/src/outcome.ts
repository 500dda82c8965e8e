/**
 * What extracting a document gives: its text (per page for a PDF), or a failure with one of the contract's codes
 * (`../shared/spec/contract.md`, "AI knowledge") and a message a user can act on.
 */
export type FailureCode = 'encrypted' | 'no_text' | 'unreadable' | 'too_large' | 'timeout';

export interface Extracted {
  ok: true;
  /** The document's text; for a PDF, its pages joined by a blank line (`pages` keeps them apart). */
  text: string;
  /** A PDF's text per page, in page order (a page without text is ''). */
  pages?: string[];
}

export interface ExtractionFailure {
  ok: false;
  code: FailureCode;
  message: string;
}

export type Extraction = Extracted | ExtractionFailure;

/** Thrown inside the extractors, turned into an ExtractionFailure by `extractDocument`. */
export class ExtractionFailed extends Error {
  constructor(readonly code: FailureCode, message: string) {
    super(message);
    this.name = 'ExtractionFailed';
  }
}

/** The message of a document with no text to extract (a scanned PDF): the contract's words. */
export const NO_TEXT_LAYER = 'no text layer; OCR is not supported';

export interface ExtractLimits {
  /** Most PDF pages read; a longer PDF is `too_large`. */
  maxPages: number;
  /** Most bytes a DOCX may inflate to, all its entries together (the ZIP-bomb bound); past it, `too_large`. */
  maxInflatedBytes: number;
  /** Most characters of text kept from one document; past it, `too_large`. */
  maxCharacters: number;
  /** When extraction must stop (ms since the epoch, `Date.now()`'s clock): checked between pages, `timeout`. */
  deadline: number;
}

/** The defaults: about what a 10 MiB upload of real documents holds, with room; each can be set per call. */
export const DEFAULT_LIMITS: Omit<ExtractLimits, 'deadline'> & { timeoutMs: number } = {
  maxPages: 2_000,
  maxInflatedBytes: 100 * 1024 * 1024,
  maxCharacters: 20_000_000,
  timeoutMs: 60_000,
};

/** Throws `timeout` once the deadline has passed. */
export function checkDeadline(limits: Pick<ExtractLimits, 'deadline'>): void {
  if (Date.now() > limits.deadline) throw new ExtractionFailed('timeout', 'Extraction took longer than the time allowed for one document.');
}

/** Throws `too_large` when the text passed the character bound. */
export function checkCharacters(length: number, limits: Pick<ExtractLimits, 'maxCharacters'>): void {
  if (length > limits.maxCharacters) {
    throw new ExtractionFailed('too_large', `The document holds more than ${limits.maxCharacters} characters of text, the most one document may hold.`);
  }
}
