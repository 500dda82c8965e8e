/** Reads environment variables, collecting every problem (with the variable's name) instead of stopping at the first. */
export type Env = Record<string, string | undefined>;

/** In place of a value that may hold a password. */
export const HIDDEN = '(not shown: it may hold a password)';

/**
 * A value quoted for an error message, unless it may hold a password: an "@" (a URL with credentials set in the
 * wrong variable) or a "?" (a query with options) keeps it out of the message and so out of logs.
 */
export function shown(raw: string): string {
  return /[@?]/.test(raw) ? HIDDEN : `"${raw}"`;
}

export class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || n < min || n > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got ${shown(raw)})`);
      return fallback;
    }
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    this.problems.push(`${name} must be true or false (got ${shown(this.env[name]!)})`);
    return fallback;
  }

  str(name: string, fallback: string, allowed?: readonly string[]): string {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (allowed && !allowed.includes(raw)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got ${shown(raw)})`);
      return fallback;
    }
    return raw;
  }

  secret(name: string, minLength: number): string | undefined {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return undefined;
    if (raw.length < minLength) this.problems.push(`${name} must be at least ${minLength} characters long`);
    return raw;
  }
}
