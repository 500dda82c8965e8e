/**
 * The bounds of one OTLP item (docs/opentelemetry.md, "Limits"). Protobuf grows ~12x when decoded and mapped (an
 * empty attribute is 2 bytes on the wire), and a resource's attributes are copied into every span under it: without
 * these, a 5 MiB body becomes a bus message or a MongoDB document far past what Kafka or MongoDB take.
 */
import { OtlpDecodeError } from './errors.js';

/** Attributes of one holder (span, event, link, resource, scope, log record). */
export const MAX_ATTRIBUTES = 1000;
/** Events of one span. */
export const MAX_EVENTS = 1000;
/** Links of one span. */
export const MAX_LINKS = 1000;
/** Text of a resource and its scope, as copied into each item under them. */
export const MAX_CONTEXT_TEXT = 64 * 1024;
/** Text of one mapped span or log record, its resource and scope included. */
export const MAX_ITEM_TEXT = 1024 * 1024;

/** A request holding more spans or log records than the decoder was allowed to read (the endpoint answers 400). */
export class OtlpTooManyItemsError extends OtlpDecodeError {
  constructor(readonly max: number) {
    super(`more than ${max} items`);
  }
}

/** How many items a decoder may still read: it stops at the first one past the bound. */
export interface ItemBudget {
  left: number;
}

export function takeItem(budget: ItemBudget, max: number): void {
  if (--budget.left < 0) throw new OtlpTooManyItemsError(max);
}

/**
 * The text size of a plain JSON value: the length of each string and key, plus 8 for every other value and every
 * pair (so a list of empty attributes counts too). `skip` names top-level fields left out (counted elsewhere).
 */
export function textSize(value: unknown, skip?: ReadonlySet<string>): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 8;
  let n = 8;
  if (Array.isArray(value)) {
    for (const v of value) n += textSize(v);
    return n;
  }
  for (const k of Object.keys(value)) if (!skip?.has(k)) n += k.length + textSize((value as Record<string, unknown>)[k]);
  return n;
}
