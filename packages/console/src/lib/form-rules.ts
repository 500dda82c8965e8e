/** What the console checks before sending a form or a file, so a person reads the problem at once. Pure: unit-tested in packages/console/test. */
import { formatBytes } from './format';

/** The API refuses shorter passwords (contract: `password` 8+ characters). */
export const MIN_PASSWORD_LENGTH = 8;

/** The sign-up fields' problem as a sentence to show, or undefined when they can be sent. */
export function signUpProblem(email: string, password: string): string | undefined {
  const trimmed = email.trim();
  if (!trimmed) return 'Enter your email address.';
  if (!/^[^\s@]+@[^\s@]+$/.test(trimmed)) return 'Enter a valid email address, like name@example.com.';
  if (password.length < MIN_PASSWORD_LENGTH) return `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
  return undefined;
}

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
