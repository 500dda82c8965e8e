import { RejectedItem } from './attributes.js';
import type { OtlpInt64 } from './shape.js';

/**
 * OTLP ids and times in Lantern's terms: a trace id's 32 hex digits are a UUID; a span id's 16 are the first half
 * of one, the rest zeros (the rule of `traceparent`, packages/sdk-node/src/traceparent.ts); nanoseconds since the
 * epoch become ISO 8601 UTC text with milliseconds.
 */
const HEX32 = /^[0-9a-fA-F]{32}$/;
const HEX16 = /^[0-9a-fA-F]{16}$/;
const ZEROS = /^0+$/;
const SPAN_TAIL = '0'.repeat(16);
const NANOS = /^[0-9]{1,20}$/;

export const uuidOfHex = (hex32: string): string => {
  const h = hex32.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

/** A trace id: 32 hex digits, not all zeros. */
export function traceUuid(hex: string | undefined, what = 'traceId'): string {
  if (typeof hex !== 'string' || !HEX32.test(hex)) throw new RejectedItem(`${what} must be 32 hex digits`);
  if (ZEROS.test(hex)) throw new RejectedItem(`${what} must not be all zeros`);
  return uuidOfHex(hex);
}

/** A span id: 16 hex digits, not all zeros, followed by 16 zeros. */
export function spanUuid(hex: string | undefined, what = 'spanId'): string {
  if (typeof hex !== 'string' || !HEX16.test(hex)) throw new RejectedItem(`${what} must be 16 hex digits`);
  if (ZEROS.test(hex)) throw new RejectedItem(`${what} must not be all zeros`);
  return uuidOfHex(hex + SPAN_TAIL);
}

/** An optional id: absent, empty or all zeros is none; anything else must be valid. */
export function optionalId(hex: string | undefined, toUuid: (hex: string, what: string) => string, what: string): string | undefined {
  if (hex === undefined || hex === '' || ZEROS.test(hex)) return undefined;
  return toUuid(hex, what);
}

/** The `lantern=<32 hex>` member of a tracestate: a Lantern caller's whole span id. */
export function lanternMember(traceState: string | undefined): string | undefined {
  if (!traceState) return undefined;
  for (const raw of traceState.split(',')) {
    const member = raw.trim();
    if (!member.startsWith('lantern=')) continue;
    const v = member.slice('lantern='.length);
    if (/^[0-9a-f]{32}$/.test(v)) return v;
  }
  return undefined;
}

/** Nanoseconds since the epoch as a bigint; undefined when absent, not a whole number, or 0. */
export function nanosOf(value: OtlpInt64 | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  let n: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) && !(Number.isInteger(value) && value > 0)) return undefined;
    n = BigInt(value);
  } else {
    if (!NANOS.test(value)) return undefined;
    n = BigInt(value);
  }
  return n > 0n ? n : undefined;
}

/** The largest time a Date holds, in milliseconds. */
const MAX_MS = 8_640_000_000_000_000n;

/** Nanoseconds as ISO 8601 UTC with milliseconds (truncated to the millisecond). */
export function isoOfNanos(nanos: bigint, what: string): string {
  const ms = nanos / 1_000_000n;
  if (ms > MAX_MS) throw new RejectedItem(`${what} is past the year 275760`);
  return new Date(Number(ms)).toISOString();
}

/** round((end - start) / 1e6) in whole milliseconds; 0 when the end is absent or before the start. */
export function durationMsOf(start: bigint, end: bigint | undefined): number {
  if (end === undefined || end < start) return 0;
  return Number((end - start + 500_000n) / 1_000_000n);
}
