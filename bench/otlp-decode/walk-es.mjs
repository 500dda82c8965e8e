// @bufbuild/protobuf v2 messages (plain objects: Uint8Array bytes, bigint 64-bit integers, oneofs as
// { case, value }) -> the shape, with the same conversions as @lantern/otlp's decoder, so the whole cost is measured.
const hex = (b) => (b.length ? Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex') : undefined);

function anyValue(v) {
  const o = v.value;
  switch (o.case) {
    case 'stringValue': return { stringValue: o.value };
    case 'boolValue': return { boolValue: o.value };
    case 'intValue': return { intValue: String(o.value) };
    case 'doubleValue': return { doubleValue: o.value };
    case 'arrayValue': return { arrayValue: { values: o.value.values.map(anyValue) } };
    case 'kvlistValue': return { kvlistValue: { values: o.value.values.map(keyValue) } };
    case 'bytesValue': return { bytesValue: Buffer.from(o.value.buffer, o.value.byteOffset, o.value.length).toString('base64') };
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
    flags: s.flags, name: s.name, kind: s.kind, startTimeUnixNano: String(s.startTimeUnixNano), endTimeUnixNano: String(s.endTimeUnixNano),
    attributes: attrs(s.attributes), droppedAttributesCount: s.droppedAttributesCount,
    events: s.events.length ? s.events.map((e) => ({ timeUnixNano: String(e.timeUnixNano), name: e.name, attributes: attrs(e.attributes), droppedAttributesCount: e.droppedAttributesCount })) : undefined,
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
  timeUnixNano: String(l.timeUnixNano), observedTimeUnixNano: String(l.observedTimeUnixNano), severityNumber: l.severityNumber,
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
