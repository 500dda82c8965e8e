import { useEffect, useState } from 'react';
import { SCOPE_KEYS } from './lib/view-scope';

/**
 * Hash routes (`#/traces?status=5xx`): the console lives at `/` beside the API's own paths, so its pages never
 * collide with an API route, and any static server (the embedded gateway, nginx) serves it without rewrites.
 */
export interface Route { path: string; params: URLSearchParams }

/** A view's params; a list is the parameter repeated (`attr=a&attr=b`). */
export type ViewParams = Record<string, string | number | undefined | null | readonly string[]>;

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  return { path: path.startsWith('/') ? path : `/${path}`, params: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

export function href(path: string, params?: ViewParams): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) {
    if (Array.isArray(v)) for (const item of v as readonly string[]) search.append(k, item);
    else if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  }
  const qs = search.toString();
  return `#${path}${qs ? `?${qs}` : ''}`;
}

/**
 * A link to one trace. It names the project, so the link opens the right trace even where another project is
 * selected (the shell switches to it).
 */
export function traceHref(traceId: string, projectId: number | undefined, params?: Record<string, string | undefined>): string {
  return href(`/traces/${traceId}`, { ...params, project: projectId });
}

export function navigate(path: string, params?: ViewParams, replace = false): void {
  const target = href(path, params);
  if (replace) history.replaceState(null, '', target);
  else history.pushState(null, '', target);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

/** The organization, project and application params of `params` (the view's scope, lib/view-scope.ts). */
export function scopeOf(params: URLSearchParams): Record<string, string | undefined> {
  return Object.fromEntries(SCOPE_KEYS.map((k) => [k, params.get(k) ?? undefined]));
}

/** A link to another page of the same organization, project and application as the page in view. */
export function hrefInScope(path: string, current: URLSearchParams, params?: ViewParams): string {
  return href(path, { ...scopeOf(current), ...params });
}

/** How a change of view enters the history: a new entry (Back returns), in place, or as typing (see below). */
export type HistoryMode = 'push' | 'replace' | 'typing';

/** A pause in typing longer than this starts a new history entry. */
const TYPING_PAUSE_MS = 3000;
let lastTyping = { path: '', at: 0 };

/**
 * A change of the page's view (a filter, the window, the selected span): keeps the scope of the URL in view
 * (organization, project, application) unless `params` sets it. 'typing' pushes the first change of a burst of
 * typing and replaces the next ones, so Back skips the half-typed texts but returns to the view before.
 */
export function navigateView(path: string, params: ViewParams, mode: HistoryMode = 'push'): void {
  const now = Date.now();
  const replace = mode === 'replace' || (mode === 'typing' && lastTyping.path === path && now - lastTyping.at < TYPING_PAUSE_MS);
  lastTyping = mode === 'typing' ? { path, at: now } : { path: '', at: 0 };
  navigate(path, { ...scopeOf(parseHash(location.hash).params), ...params }, replace);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', on);
    window.addEventListener('popstate', on);
    return () => {
      window.removeEventListener('hashchange', on);
      window.removeEventListener('popstate', on);
    };
  }, []);
  return route;
}
