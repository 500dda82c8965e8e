/** The upload rules of AI documents, checked before a file is sent. Pure functions: unit-tested in packages/console/test. */
import { formatBytes } from './format';

/** The API's document limit: 10 MB = 10 × 1024 × 1024 bytes; exactly that is accepted, one byte more is 413. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** Why a file cannot be uploaded, said before sending it; undefined when it may go. */
export function uploadProblem(file: { name: string; size: number }): string | undefined {
  if (file.size > MAX_UPLOAD_BYTES) {
    return `${file.name} is too large: ${formatBytes(file.size)} (${file.size.toLocaleString('en-US')} bytes); `
      + `the limit is 10 MB (${MAX_UPLOAD_BYTES.toLocaleString('en-US')} bytes).`;
  }
  if (file.size === 0) return `${file.name} is empty: there is nothing to upload.`;
  return undefined;
}

/** "text/plain; charset=utf-8" → "text/plain": the type without its parameters. */
export function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim();
}
