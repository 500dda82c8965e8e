import { limits } from '../limits.js';

/** Reusable pieces of the JSON schemas (JSON Schema 2020-12, also used verbatim in the OpenAPI 3.1 document). */
export const timestamp = {
  type: 'string',
  format: 'date-time',
  maxLength: 64,
  description: 'ISO 8601 date-time with an offset; returned as UTC with 3 fractional digits and Z.',
  examples: ['2026-11-22T10:43:34.123Z'],
} as const;

// `format: uuid` alone (ajv-formats) also takes a `urn:uuid:` prefix, which would be stored as the id: the pattern
// keeps ids to the bare 8-4-4-4-12 hex form.
export const uuid = {
  type: 'string',
  format: 'uuid',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'UUID text in any case; stored lower-case.',
} as const;

export const positiveId = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

export const recordId = { type: 'string', description: 'Record id (a UUID string).' } as const;

export const name = {
  type: 'string',
  minLength: 1,
  maxLength: limits.maxNameLength,
  pattern: '^(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f]+$',
  description: 'Visible text without control characters, 1-200 characters.',
} as const;

export const longString = { type: 'string', maxLength: limits.maxStringLength } as const;
