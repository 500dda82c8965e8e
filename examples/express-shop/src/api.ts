/** A small client of Lantern's HTTP API (see docs/api.md), enough for the demo. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    const error = (body as { error?: { message?: string } } | undefined)?.error;
    super(`${what} answered ${status}${error?.message ? `: ${error.message}` : ''}`);
  }
}

export interface ApiResponse<T> {
  body: T;
  headers: Headers;
}

export async function api<T>(base: string, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  if (!res.ok) throw new ApiError(res.status, body, `${method} ${path}`);
  return { body: body as T, headers: res.headers };
}

/** Every page of a paginated read (`limit` + `X-Next-Cursor`), up to `maxItems`. */
export async function readAll<T>(base: string, path: string, token: string, maxItems: number): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  do {
    const page: ApiResponse<T[]> = await api<T[]>(base, 'GET', `${path}${sep}limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    items.push(...page.body);
    cursor = page.headers.get('x-next-cursor');
  } while (cursor && items.length < maxItems);
  return { items, more: cursor !== null };
}
