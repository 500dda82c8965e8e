/**
 * The answers of the OTLP/HTTP endpoints: Export{Trace,Logs}ServiceResponse and google.rpc.Status, in protobuf
 * (protobufjs's Writer) or in OTLP/JSON (proto3 JSON: int64 as decimal text, default values left out).
 */
import protobuf from 'protobufjs/minimal.js';

export type OtlpEncoding = 'protobuf' | 'json';

/** How many spans or log records were refused, and why (OTLP's partial success). */
export interface OtlpPartialSuccess {
  rejected: number;
  errorMessage: string;
}

/**
 * ExportTraceServiceResponse / ExportLogsServiceResponse. Without a partial success (or with nothing to say in it) the
 * answer is the empty message: no bytes in protobuf, `{}` in JSON.
 */
export function encodeExportResponse(signal: 'traces' | 'logs', encoding: OtlpEncoding, partial?: OtlpPartialSuccess): Uint8Array | string {
  const rejected = partial && partial.rejected > 0 ? Math.trunc(partial.rejected) : 0;
  const message = partial?.errorMessage ?? '';
  const any = rejected > 0 || message !== '';
  if (encoding === 'json') {
    if (!any) return '{}';
    const inner: Record<string, string> = {};
    if (rejected > 0) inner[signal === 'traces' ? 'rejectedSpans' : 'rejectedLogRecords'] = String(rejected);
    if (message !== '') inner.errorMessage = message;
    return JSON.stringify({ partialSuccess: inner });
  }
  const writer = protobuf.Writer.create();
  if (any) {
    // partial_success = 1 { rejected_spans | rejected_log_records = 1 (int64); error_message = 2 }
    writer.uint32(10).fork();
    if (rejected > 0) writer.uint32(8).int64(rejected);
    if (message !== '') writer.uint32(18).string(message);
    writer.ldelim();
  }
  return writer.finish();
}

/** google.rpc.Status { code = 1 (int32); message = 2; details = 3 (none) }; JSON always lists `details: []`. */
export function encodeStatus(encoding: OtlpEncoding, status: { code: number; message: string }): Uint8Array | string {
  if (encoding === 'json') return JSON.stringify({ code: status.code, message: status.message, details: [] });
  const writer = protobuf.Writer.create();
  if (status.code !== 0) writer.uint32(8).int32(status.code);
  if (status.message !== '') writer.uint32(18).string(status.message);
  return writer.finish();
}
