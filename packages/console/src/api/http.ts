import { errorFromBody } from './errors';
import { getToken, setToken } from '../session';
import type { Page } from './types';

/** Query parameters; a list is sent as the parameter repeated (`attr=a&attr=b`). */
export type Query = Record<string, string | number | undefined | null | readonly string[]>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v)) for (const item of v as readonly string[]) params.append(k, item);
    else if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

interface Answer { response: Response; text: string }

async function send(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = JSON.stringify(body);
  if (signal) init.signal = signal;
  const response = await fetch(path, init);
  const text = await response.text();
  if (!response.ok) {
    // An expired or revoked session: sign out, so the console shows the sign-in page instead of errors.
    // (GET /auth/me included: a token expired since the last visit; login and register answer 401 for other reasons.)
    if (response.status === 401 && token && path !== '/auth/login' && path !== '/auth/register') setToken(null);
    throw errorFromBody(response.status, text);
  }
  return { response, text };
}

/** One JSON call; the answer's body parsed (undefined for 204). Non-2xx throws an ApiError. */
export async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const { text } = await send(method, path, body, signal);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** One page of a list read with `limit` and `cursor`; the next cursor from `X-Next-Cursor`. */
export async function page<T>(path: string, query: Query, signal?: AbortSignal): Promise<Page<T>> {
  const { response, text } = await send('GET', withQuery(path, query), undefined, signal);
  const next = response.headers.get('x-next-cursor');
  return { items: JSON.parse(text) as T[], ...(next ? { nextCursor: next } : {}) };
}

/**
 * An export (`format=ndjson|csv`) saved as a file: fetched with the session's token, then handed to the browser as a
 * download under the server's file name. The browser holds the file while it arrives; an export too large for that
 * is better taken with curl (docs/console.md), which the server streams at the same bounded memory.
 */
export async function download(path: string, query: Query, signal?: AbortSignal): Promise<{ filename: string; bytes: number }> {
  const token = getToken();
  const response = await fetch(withQuery(path, query), { headers: token ? { authorization: `Bearer ${token}` } : {}, ...(signal ? { signal } : {}) });
  if (!response.ok) {
    if (response.status === 401 && token) setToken(null);
    throw errorFromBody(response.status, await response.text());
  }
  const filename = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `lantern-export.${String(query['format'])}`;
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  try {
    const a = document.createElement('a');
    a.href = url;
    a.download = filename;
    a.hidden = true;
    document.body.append(a);
    a.click();
    a.remove();
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
  return { filename, bytes: blob.size };
}
