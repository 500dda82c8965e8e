// protobufjs message objects (reflection and pbjs static code build the same ones: camelCase fields, Buffer for
// bytes, Long for 64-bit integers, a `value` getter naming the set member of AnyValue's oneof) -> the shape, with
// the same conversions as @lantern/otlp's decoder (hex ids, decimal text, base64), so the whole cost is measured.
// The decoder's own exact 64-bit decimal conversion (not a public export of the package: imported from its build).
import { uint64Text } from '../../packages/otlp/dist/protobuf-wire.js';

const hex = (b) => (b && b.length ? b.toString('hex') : undefined);
const u64 = (l) => (typeof l === 'number' ? String(l) : uint64Text(l.low, l.high));
const i64 = (l) => {
  if (typeof l === 'number') return String(l);
  if (l.high >= 0) return uint64Text(l.low, l.high);
  const lo = (~l.low + 1) >>> 0;
  return '-' + uint64Text(lo, (~l.high + (lo === 0 ? 1 : 0)) >>> 0);
};

function anyValue(v) {
  switch (v.value) {
    case 'stringValue': return { stringValue: v.stringValue };
    case 'boolValue': return { boolValue: v.boolValue };
    case 'intValue': return { intValue: i64(v.intValue) };
    case 'doubleValue': return { doubleValue: v.doubleValue };
    case 'arrayValue': return { arrayValue: { values: v.arrayValue.values.map(anyValue) } };
    case 'kvlistValue': return { kvlistValue: { values: v.kvlistValue.values.map(keyValue) } };
    case 'bytesValue': return { bytesValue: v.bytesValue.toString('base64') };
    default: return {};
  }
}
const keyValue = (kv) => (kv.value ? { key: kv.key, value: anyValue(kv.value) } : { key: kv.key });
const attrs = (list) => (list.length ? list.map(keyValue) : undefined);
const resource = (r) => r && { attributes: attrs(r.attributes), droppedAttributesCount: r.droppedAttributesCount };
const scope = (s) => s && { name: s.name, version: s.version, attributes: attrs(s.attributes), droppedAttributesCount: s.droppedAttributesCount };

function span(s) {
  return {
    traceId: hex(s.traceId), spanId: hex(s.spanId), traceState: s.traceState || undefined, parentSpanId: hex(s.parentSpanId),
    flags: s.flags, name: s.name, kind: s.kind, startTimeUnixNano: u64(s.startTimeUnixNano), endTimeUnixNano: u64(s.endTimeUnixNano),
    attributes: attrs(s.attributes), droppedAttributesCount: s.droppedAttributesCount,
    events: s.events.length ? s.events.map((e) => ({ timeUnixNano: u64(e.timeUnixNano), name: e.name, attributes: attrs(e.attributes), droppedAttributesCount: e.droppedAttributesCount })) : undefined,
    droppedEventsCount: s.droppedEventsCount,
    links: s.links.length ? s.links.map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId), traceState: l.traceState || undefined, attributes: attrs(l.attributes), droppedAttributesCount: l.droppedAttributesCount, flags: l.flags })) : undefined,
    droppedLinksCount: s.droppedLinksCount,
    status: s.status ? { message: s.status.message, code: s.status.code } : undefined,
  };
}

export const tracesShape = (m) => ({
  resourceSpans: m.resourceSpans.map((rs) => ({
    resource: resource(rs.resource),
    scopeSpans: rs.scopeSpans.map((ss) => ({ scope: scope(ss.scope), spans: ss.spans.map(span), schemaUrl: ss.schemaUrl })),
    schemaUrl: rs.schemaUrl,
  })),
});

const logRecord = (l) => ({
  timeUnixNano: u64(l.timeUnixNano), observedTimeUnixNano: u64(l.observedTimeUnixNano), severityNumber: l.severityNumber,
  severityText: l.severityText, body: l.body ? anyValue(l.body) : undefined, attributes: attrs(l.attributes),
  droppedAttributesCount: l.droppedAttributesCount, flags: l.flags, traceId: hex(l.traceId), spanId: hex(l.spanId), eventName: l.eventName,
});

export const logsShape = (m) => ({
  resourceLogs: m.resourceLogs.map((rl) => ({
    resource: resource(rl.resource),
    scopeLogs: rl.scopeLogs.map((sl) => ({ scope: scope(sl.scope), logRecords: sl.logRecords.map(logRecord), schemaUrl: sl.schemaUrl })),
    schemaUrl: rl.schemaUrl,
  })),
});
