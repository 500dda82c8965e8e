export * from './shape.js';
export { type Attribute, type PlainValue, RejectedItem } from './attributes.js';
export { type Mapped, rejectionMessage } from './map-common.js';
export { countSpans, kindOf, mapSpan, mapTraces } from './map-spans.js';
export { countLogRecords, levelOf, mapLogRecord, mapLogs, messageOf } from './map-logs.js';
export { exportResponseJson, grpcCodeOf, type OtlpSignal, type PartialSuccess, statusJson } from './answers-json.js';
