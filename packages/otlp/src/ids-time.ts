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

/**
 * Nanoseconds since the epoch, split into whole milliseconds and the nanoseconds left over (0-999,999): both exact
 * JavaScript numbers for any 20-digit value, so the times of every span are read without a BigInt.
 */
export interface Nanos {
  ms: number;
  ns: number;
}

const splitBigInt = (n: bigint): Nanos => ({ ms: Number(n / 1_000_000n), ns: Number(n % 1_000_000n) });

/** Nanoseconds since the epoch; undefined when absent, not a whole number, or 0. */
export function nanosOf(value: OtlpInt64 | undefined): Nanos | undefined {
  if (value === undefined) return undefined;
  let n: Nanos;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) {
      // The quotient is a float: near a whole number of milliseconds it may round up; the remainder corrects it.
      let ms = Math.floor(value / 1e6);
      let ns = value - ms * 1e6;
      if (ns < 0) (ms -= 1), (ns += 1e6);
      else if (ns >= 1e6) (ms += 1), (ns -= 1e6);
      n = { ms, ns };
    } else if (Number.isInteger(value) && value > 0) {
      n = splitBigInt(BigInt(value));
    } else {
      return undefined;
    }
  } else {
    if (!NANOS.test(value)) return undefined;
    const cut = value.length - 6;
    n = cut > 0 ? { ms: Number(value.slice(0, cut)), ns: Number(value.slice(cut)) } : { ms: 0, ns: Number(value) };
  }
  return n.ms > 0 || (n.ms === 0 && n.ns > 0) ? n : undefined;
}

/**
 * A fixed64 of nanoseconds (its low and high 32 bits) as nanosOf reads its decimal text: undefined for 0. Exact with
 * doubles: 2^32 = 4294 * 10^6 + 967296, and hi * 967296 + lo < 2^53.
 */
export function nanosOfFixed64(lo: number, hi: number): Nanos | undefined {
  lo >>>= 0;
  hi >>>= 0;
  const rest = hi * 967_296 + lo;
  const carry = Math.floor(rest / 1e6);
  const n = { ms: hi * 4294 + carry, ns: rest - carry * 1e6 };
  return n.ms > 0 || n.ns > 0 ? n : undefined;
}

/** The largest time a Date holds, in milliseconds. */
const MAX_MS = 8_640_000_000_000_000;

/**
 * The ISO text of the last whole second printed, up to its '.': the times of a request's spans fall in a few
 * seconds, and printing a Date is most of the cost of a span's times. A cache of pure values: any caller may share it.
 */
const lastSecond = { second: NaN, prefix: '' };

/** Nanoseconds as ISO 8601 UTC with milliseconds (truncated to the millisecond). */
export function isoOfNanos(nanos: Nanos, what: string): string {
  if (nanos.ms > MAX_MS) throw new RejectedItem(`${what} is past the year 275760`);
  const second = Math.floor(nanos.ms / 1000);
  const millis = nanos.ms - second * 1000;
  if (second !== lastSecond.second) {
    const iso = new Date(second * 1000).toISOString();
    lastSecond.prefix = iso.slice(0, iso.length - 4);
    lastSecond.second = second;
  }
  return `${lastSecond.prefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

/** round((end - start) / 1e6) in whole milliseconds; 0 when the end is absent or before the start. */
export function durationMsOf(start: Nanos, end: Nanos | undefined): number {
  if (end === undefined) return 0;
  const ms = end.ms - start.ms;
  const ns = end.ns - start.ns; // -999,999 to 999,999
  if (ms < 0 || (ms === 0 && ns < 0)) return 0;
  // floor((ms * 1e6 + ns + 500,000) / 1e6), without the product that could pass 2^53.
  return ms + Math.floor((ns + 500_000) / 1e6);
}
