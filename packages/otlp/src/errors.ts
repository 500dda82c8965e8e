/**
 * Undecodable OTLP input: truncated or malformed protobuf, a wrong wire type for a known field, AnyValue nesting past
 * the bound. The endpoint answers it 400 (a google.rpc.Status of code 3 INVALID_ARGUMENT).
 */
export class OtlpDecodeError extends Error {
  override readonly name = 'OtlpDecodeError';
}

/** Any failure of a decoder as OtlpDecodeError (protobufjs throws RangeError or Error on truncated or invalid input). */
export function asDecodeError(error: unknown, what: string): OtlpDecodeError {
  if (error instanceof OtlpDecodeError) return error;
  return new OtlpDecodeError(`undecodable ${what}: ${error instanceof Error ? error.message : String(error)}`);
}
