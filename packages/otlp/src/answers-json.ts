/**
 * The JSON encodings of the OTLP/HTTP answers (proto3 JSON: int64 as decimal text): the Export*ServiceResponse
 * and google.rpc.Status. The protobuf ones are in protobuf-*.ts.
 */
export type OtlpSignal = 'traces' | 'logs';

export interface PartialSuccess {
  rejected: number;
  errorMessage: string;
}

/** `{}` when nothing was rejected, else `{"partialSuccess":{"rejectedSpans":"3","errorMessage":"..."}}`. */
export function exportResponseJson(signal: OtlpSignal, partial?: PartialSuccess): string {
  if (!partial || (partial.rejected === 0 && partial.errorMessage === '')) return '{}';
  const field = signal === 'traces' ? 'rejectedSpans' : 'rejectedLogRecords';
  return JSON.stringify({ partialSuccess: { [field]: String(partial.rejected), errorMessage: partial.errorMessage } });
}

/** `{"code":3,"message":"...","details":[]}` */
export function statusJson(status: { code: number; message: string }): string {
  return JSON.stringify({ code: status.code, message: status.message, details: [] });
}

/** The gRPC code of an HTTP status, as the OTLP/HTTP answers use them. */
export function grpcCodeOf(httpStatus: number): number {
  switch (httpStatus) {
    case 400: return 3;
    case 401: return 16;
    case 403: return 7;
    case 404: return 5;
    case 405: return 12;
    case 413: return 8;
    case 415: return 3;
    case 429: return 8;
    case 503: return 14;
    default: return httpStatus >= 500 ? 13 : 3;
  }
}
