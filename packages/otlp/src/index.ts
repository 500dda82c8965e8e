export * from './shape.js';
export { OtlpDecodeError } from './errors.js';
export { decodeTracesProtobuf } from './protobuf-traces.js';
export { decodeLogsProtobuf } from './protobuf-logs.js';
export { encodeExportResponse, encodeStatus, type OtlpEncoding, type OtlpPartialSuccess } from './protobuf-encode.js';
