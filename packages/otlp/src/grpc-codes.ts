/** The gRPC code of an HTTP status, as the OTLP/HTTP error answers (google.rpc.Status) use them. */
const CODES: Record<number, number> = {
  400: 3, // INVALID_ARGUMENT
  401: 16, // UNAUTHENTICATED
  403: 7, // PERMISSION_DENIED
  404: 5, // NOT_FOUND
  405: 12, // UNIMPLEMENTED
  413: 8, // RESOURCE_EXHAUSTED
  415: 3, // INVALID_ARGUMENT
  429: 8, // RESOURCE_EXHAUSTED
  503: 14, // UNAVAILABLE
};

export function grpcCodeOf(httpStatus: number): number {
  return CODES[httpStatus] ?? (httpStatus >= 500 ? 13 : 3);
}
