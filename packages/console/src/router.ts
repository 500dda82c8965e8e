import { useEffect, useState } from 'react';

/**
 * Hash routes (`#/traces?status=5xx`): the console lives at `/` beside the API's own paths, so its pages never
 * collide with an API route, and any static server (the embedded gateway, nginx) serves it without rewrites.
 */
export interface Route { path: string; params: URLSearchParams }

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  return { path: path.startsWith('/') ? path : `/${path}`, params: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

export function href(path: string, params?: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
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

export function navigate(path: string, params?: Record<string, string | number | undefined | null>, replace = false): void {
  const target = href(path, params);
  if (replace) history.replaceState(null, '', target);
  else history.pushState(null, '', target);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
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
