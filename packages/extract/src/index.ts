export { DOCX, extractDocument, limitsOf, PDF } from './extract.js';
export { DEFAULT_LIMITS, ExtractionFailed, NO_TEXT_LAYER } from './outcome.js';
export type { Extracted, Extraction, ExtractionFailure, ExtractLimits, FailureCode } from './outcome.js';
export { decodeText, MIN_CONFIDENCE, MIN_LEAD } from './text.js';
export type { DecodedText } from './text.js';
export { checkInflatedSize, MAX_ENTRIES, zipEntries } from './zip-bound.js';
