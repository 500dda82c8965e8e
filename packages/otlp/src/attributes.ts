import { MAX_ATTRIBUTES } from './bounds.js';
import type { OtlpAnyValue, OtlpInt64, OtlpKeyValue } from './shape.js';

/** A plain JSON value as Lantern keeps an OTLP attribute's value (docs/api.md, "OTLP ingest"). */
export type PlainValue = null | string | number | boolean | PlainValue[] | Attribute[];

/** One attribute: OTel keys have dots (`http.request.method`), so they stay a list of pairs, never object keys. */
export interface Attribute {
  key: string;
  value: PlainValue;
}

/** An item the mapping refuses: counted in partialSuccess, its reason in errorMessage. */
export class RejectedItem extends Error {}

/**
 * Deepest nesting of AnyValue arrays and key-value lists converted. The stored span's own bound (limits.maxDepth,
 * checked by normalizeSpan) is lower; this one only keeps a hostile protobuf from running the conversion deep.
 */
export const MAX_VALUE_DEPTH = 32;

const INT64 = /^-?[0-9]{1,20}$/;

/** intValue: a number when it is a safe integer, else its decimal text (OTLP/JSON sends int64 as text). */
export function intOf(value: OtlpInt64): number | string {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : String(value);
  const n = Number(value);
  return INT64.test(value) && Number.isSafeInteger(n) ? n : value;
}

/** doubleValue: a number (numeric text too, as proto3 JSON allows); NaN and the infinities (text, or a non-finite number) as text. */
export function doubleOf(value: number | string): number | string {
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? n : value;
}

/** An AnyValue as plain JSON; an empty one is null. */
export function plainValue(value: OtlpAnyValue | undefined, depth = 0): PlainValue {
  if (value === undefined || value === null) return null;
  if (depth > MAX_VALUE_DEPTH) throw new RejectedItem(`an attribute value is nested deeper than ${MAX_VALUE_DEPTH} levels`);
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return intOf(value.intValue);
  if (value.doubleValue !== undefined) return doubleOf(value.doubleValue);
  if (value.bytesValue !== undefined) return value.bytesValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map((v) => plainValue(v, depth + 1));
  if (value.kvlistValue !== undefined) return attributeList(value.kvlistValue.values, depth + 1);
  return null;
}

function attributeList(list: OtlpKeyValue[] | undefined, depth: number): Attribute[] {
  return (list ?? []).map((kv) => ({ key: kv.key ?? '', value: plainValue(kv.value, depth + 1) }));
}

/** Attributes as `[{ key, value }]`, or undefined when there are none (the field is then omitted); over MAX_ATTRIBUTES: RejectedItem. */
export function attributesOf(list: OtlpKeyValue[] | undefined, holder = 'an item'): Attribute[] | undefined {
  if (!list || list.length === 0) return undefined;
  if (list.length > MAX_ATTRIBUTES) throw new RejectedItem(`${holder} has more than ${MAX_ATTRIBUTES} attributes`);
  return attributeList(list, 0);
}

/** What the mapping looks up in a span's attributes (the first of a repeated key wins). */
export interface AttributeLookup {
  /** The attribute's value when it is a non-empty string. */
  text(key: string): string | undefined;
  /** The attribute's value when it is an integer (intValue, a whole doubleValue, or numeric text). */
  integer(key: string): number | undefined;
}

/** numeric text as an integer (AttributeIndex.integer's rule for a stringValue), else undefined. */
export function integerOfText(text: string): number | undefined {
  const n = /^-?[0-9]+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Looks OTLP/JSON attributes up by key (the first of a repeated key wins). */
export class AttributeIndex implements AttributeLookup {
  private readonly byKey = new Map<string, OtlpAnyValue | undefined>();

  constructor(...lists: Array<OtlpKeyValue[] | undefined>) {
    for (const list of lists) {
      for (const kv of list ?? []) {
        const key = kv.key ?? '';
        if (!this.byKey.has(key)) this.byKey.set(key, kv.value);
      }
    }
  }

  /** The attribute's value when it is a non-empty string. */
  text(key: string): string | undefined {
    const v = this.byKey.get(key)?.stringValue;
    return typeof v === 'string' && v !== '' ? v : undefined;
  }

  /** The attribute's value when it is an integer (intValue, a whole doubleValue, or numeric text). */
  integer(key: string): number | undefined {
    const v = this.byKey.get(key);
    if (!v) return undefined;
    const raw = v.intValue ?? v.doubleValue ?? v.stringValue;
    if (raw === undefined) return undefined;
    if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : undefined;
    return integerOfText(raw);
  }
}
