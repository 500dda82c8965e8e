/**
 * A span's `repeated KeyValue attributes` decoded straight into their stored form: what readKeyValue (protobuf-common.ts)
 * and then plainValue (attributes.ts) give, without the OTLP/JSON objects in between (two per attribute, and a Map per
 * span to look them up). The wire is read exactly as readKeyValue reads it: the same fields, wire types, nesting bound
 * and errors (OtlpDecodeError, the request's 400). What plainValue would refuse (nesting past its own, lower bound) is
 * kept as the rejection of the list, for the mapping to give in its turn (map-spans.ts).
 */
import { type Attribute, type AttributeLookup, integerOfText, intOf, doubleOf, MAX_VALUE_DEPTH, type PlainValue } from './attributes.js';
import { MAX_ATTRIBUTES } from './bounds.js';
import { OtlpDecodeError } from './errors.js';
import { ANY_VALUE_FIELDS, KEY_VALUE_FIELDS, LIST_FIELDS, MAX_ANY_VALUE_DEPTH } from './protobuf-common.js';
import { expectEnd, fieldEnd, readBase64, readInt64Text, skipField, type Reader } from './protobuf-wire.js';

/** Which field of an AnyValue was set last (the one that counts), for the lookups. */
const enum Kind { None, String, Bool, Int, Double, Array, KvList, Bytes }

const TOO_DEEP = `an attribute value is nested deeper than ${MAX_VALUE_DEPTH} levels`;

/** One attribute list: the stored attributes, the kind of each value, and plainValue's refusal if it has one. */
export class PlainAttributes implements AttributeLookup {
  readonly list: Attribute[] = [];
  private readonly kinds: Kind[] = [];
  /** plainValue's reason to refuse a value of the list (nesting), when one would. */
  rejection: string | undefined;

  /**
   * Reads one element of the field. Past MAX_ATTRIBUTES one more is kept (the mapping rejects the holder) and the
   * rest skipped, as pushAttribute does.
   */
  push(r: Reader, end: number): void {
    if (this.list.length > MAX_ATTRIBUTES) {
      r.skipType(2);
      return;
    }
    this.list.push(this.keyValue(r, fieldEnd(r, end), 1, 1));
    this.kinds.push(this.kind);
  }

  /**
   * A KeyValue ending at `end`, as readKeyValue reads it: the last key and the last value field count, and only what
   * that value would be refused for. Its value's kind is left in `kind` (None without a value).
   */
  private keyValue(r: Reader, end: number, depth: number, plainDepth: number): Attribute {
    let key = '';
    let value: PlainValue = null;
    let kind = Kind.None;
    const before = this.rejection;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag === 10) key = r.string();
      else if (tag === 18) {
        this.rejection = before;
        value = this.anyValue(r, fieldEnd(r, end), depth, plainDepth);
        kind = this.kind;
      } else skipField(r, tag, KEY_VALUE_FIELDS);
    }
    expectEnd(r, end);
    this.kind = kind;
    return { key, value };
  }

  /** The kind of the last value anyValue read. */
  private kind = Kind.None;

  /**
   * An AnyValue: `depth` as readAnyValue counts it (the decode bound), `plainDepth` as plainValue does (its bound is
   * a rejection of the span, not of the request).
   */
  private anyValue(r: Reader, end: number, depth: number, plainDepth: number): PlainValue {
    if (depth > MAX_ANY_VALUE_DEPTH) throw new OtlpDecodeError(`AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH} levels`);
    const before = this.rejection;
    let value: PlainValue = null;
    let kind = Kind.None;
    while (r.pos < end) {
      const tag = r.uint32();
      switch (tag) {
        case 10: value = r.string(); kind = Kind.String; break;
        case 16: value = r.bool(); kind = Kind.Bool; break;
        case 24: value = intOf(readInt64Text(r)); kind = Kind.Int; break;
        case 33: value = doubleOf(r.double()); kind = Kind.Double; break;
        case 42: this.rejection = before; value = this.values(r, fieldEnd(r, end), depth, plainDepth); kind = Kind.Array; break;
        case 50: this.rejection = before; value = this.keyValues(r, fieldEnd(r, end), depth, plainDepth); kind = Kind.KvList; break;
        case 58: value = readBase64(r, end); kind = Kind.Bytes; break;
        default: skipField(r, tag, ANY_VALUE_FIELDS); continue;
      }
      // A scalar set last: nothing nested in an earlier field counts any more.
      if (kind !== Kind.Array && kind !== Kind.KvList) this.rejection = before;
    }
    expectEnd(r, end);
    if (plainDepth > MAX_VALUE_DEPTH) this.rejection ??= TOO_DEEP;
    this.kind = kind;
    return value;
  }

  /** ArrayValue.values, each one level deeper for both bounds. */
  private values(r: Reader, end: number, depth: number, plainDepth: number): PlainValue[] {
    const values: PlainValue[] = [];
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag === 10) values.push(this.anyValue(r, fieldEnd(r, end), depth + 1, plainDepth + 1));
      else skipField(r, tag, LIST_FIELDS);
    }
    expectEnd(r, end);
    return values;
  }

  /** KeyValueList.values: readKeyValueList's depth + 1, attributeList's plain depth + 2. */
  private keyValues(r: Reader, end: number, depth: number, plainDepth: number): Attribute[] {
    const values: Attribute[] = [];
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag === 10) values.push(this.keyValue(r, fieldEnd(r, end), depth + 1, plainDepth + 2));
      else skipField(r, tag, LIST_FIELDS);
    }
    expectEnd(r, end);
    return values;
  }

  /** The first attribute of the key (AttributeIndex's rule), or -1. */
  private find(key: string): number {
    const list = this.list;
    for (let i = 0; i < list.length; i++) if (list[i]!.key === key) return i;
    return -1;
  }

  text(key: string): string | undefined {
    const i = this.find(key);
    return i >= 0 && this.kinds[i] === Kind.String && this.list[i]!.value !== '' ? (this.list[i]!.value as string) : undefined;
  }

  integer(key: string): number | undefined {
    const i = this.find(key);
    if (i < 0) return undefined;
    const value = this.list[i]!.value;
    switch (this.kinds[i]) {
      // intOf and doubleOf keep a number only when it is a safe integer, or finite: text means it is not one.
      case Kind.Int:
      case Kind.Double: return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
      case Kind.String: return integerOfText(value as string);
      default: return undefined;
    }
  }
}
