/** Rules of the account forms, checked before anything is sent. Pure functions: unit-tested in packages/console/test. */

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
