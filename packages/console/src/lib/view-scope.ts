/**
 * What every console URL carries besides its page's filters: the organization, project and application in view,
 * so a link opens the same view for whoever follows it (`#/logs?org=1&project=4&applicationId=all&level=error`).
 * `applicationId=all` is every application of the project. Pure: unit-tested in test/view-scope.test.ts.
 */

export interface ViewScope {
  organizationId?: number;
  projectId?: number;
  /** A number, 'all' (every application of the project), or undefined when the URL names none. */
  applicationId?: number | 'all';
}

export const SCOPE_KEYS = ['org', 'project', 'applicationId'] as const;

/** Pages not about one project (onboarding, sign-in): their URL carries no scope. */
const UNSCOPED_PATHS = ['/setup', '/signin', '/signup'];

export function isScopedPath(path: string): boolean {
  return !UNSCOPED_PATHS.includes(path);
}

/** Parameters of ids that belong to the project in view: they mean nothing in another project. */
const PROJECT_BOUND_KEYS = ['traceId', 'span', 'app', 'tenant', 'a', 'b'];

const id = (v: string | null): number | undefined => {
  const n = Number(v);
  return v && Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

export function parseScope(params: URLSearchParams): ViewScope {
  const app = params.get('applicationId');
  const scope: ViewScope = {};
  const org = id(params.get('org'));
  const project = id(params.get('project'));
  const applicationId = app === 'all' ? 'all' : id(app);
  if (org !== undefined) scope.organizationId = org;
  if (project !== undefined) scope.projectId = project;
  if (applicationId !== undefined) scope.applicationId = applicationId;
  return scope;
}

/** The hash params of a scope (undefined drops a key). */
export function scopeParams(scope: ViewScope): Record<(typeof SCOPE_KEYS)[number], string | undefined> {
  return {
    org: scope.organizationId === undefined ? undefined : String(scope.organizationId),
    project: scope.projectId === undefined ? undefined : String(scope.projectId),
    applicationId: scope.applicationId === undefined ? undefined : String(scope.applicationId),
  };
}

/** The application of the view: the URL's when it names one ('all' → none), else the workspace's. */
export function viewApplicationId(params: URLSearchParams, fallback: number | undefined): number | undefined {
  const app = parseScope(params).applicationId;
  if (app === 'all') return undefined;
  return app ?? fallback;
}

/** Whether the URL lacks a part of the scope the workspace has (the console then writes it in). */
export function scopeMissing(url: ViewScope, ws: ViewScope): boolean {
  return (url.organizationId === undefined && ws.organizationId !== undefined)
    || (url.projectId === undefined && ws.projectId !== undefined)
    || (url.applicationId === undefined && ws.projectId !== undefined);
}

/**
 * Where a switch of the top bar goes: the same page in the new scope. A trace belongs to its project, so a switch
 * of project or organization leaves a trace for the list; ids bound to the project (trace, span, key, tenant) are
 * dropped. An application switch keeps the rest.
 */
export function switchTarget(path: string, params: URLSearchParams, next: ViewScope, kind: 'organization' | 'project' | 'application'): { path: string; params: Record<string, string | undefined> } {
  const out: Record<string, string | undefined> = Object.fromEntries(params);
  if (kind !== 'application') {
    for (const k of PROJECT_BOUND_KEYS) delete out[k];
    if (path.startsWith('/traces/')) path = '/traces';
  }
  Object.assign(out, scopeParams(next));
  return { path, params: out };
}
