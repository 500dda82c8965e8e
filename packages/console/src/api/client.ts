/** Every call the console makes, one function each, over the public HTTP API only. */
import { api, page, withQuery } from './http';
import type {
  ApiKey, Application, DocumentRecord, LogEntry, LogFacets, LogVolume, MetricsReport, OperationMetricsReport, Organization, Page, Project, SearchAnswer, ServiceMapReport, Tenant, TraceRecord, User,
} from './types';

export interface SessionAnswer { token: string; user: User }

export const register = (email: string, password: string, name?: string) =>
  api<SessionAnswer>('POST', '/auth/register', { email, password, ...(name ? { name } : {}) });
export const login = (email: string, password: string) => api<SessionAnswer>('POST', '/auth/login', { email, password });
/** Signs out everywhere: the server refuses every token issued to this user before now (204). */
export const logout = () => api<void>('POST', '/auth/logout');
export const me = () => api<{ user: User; organizations: Organization[] }>('GET', '/auth/me');

export const listOrganizations = () => api<Organization[]>('GET', '/organizations');
export const createOrganization = (name: string) => api<Organization>('POST', '/organizations', { name });
export const listProjects = (organizationId: number) => api<Project[]>('GET', withQuery('/projects', { organizationId }));
export const createProject = (organizationId: number, name: string) => api<Project>('POST', '/projects', { organizationId, name });
export const listApplications = (projectId: number) => api<Application[]>('GET', withQuery('/applications', { projectId }));
export const createApplication = (projectId: number, name: string) => api<Application>('POST', '/applications', { projectId, name });
export const listApiKeys = (applicationId: number) => api<ApiKey[]>('GET', `/applications/${applicationId}/api-keys`);
export const createApiKey = (applicationId: number, name?: string) =>
  api<ApiKey & { key: string }>('POST', `/applications/${applicationId}/api-keys`, name ? { name } : {});
export const revokeApiKey = (id: string) => api<void>('DELETE', `/api-keys/${encodeURIComponent(id)}`);

/** Filters of the trace list; all optional (docs/api.md "Reads"). */
export interface TraceFilter {
  from?: string;
  to?: string;
  applicationId?: number;
  /** `2xx`..`5xx` or an exact code. */
  status?: string;
  minDurationMs?: number;
  maxDurationMs?: number;
  /** Text the root span's requestURL contains. */
  url?: string;
  /** The root span's service and operation, exactly. */
  service?: string;
  operation?: string;
  /** Attributes any span of the record has: `key=value` or `key` (present), all of them. */
  attr?: readonly string[];
  traceId?: string;
}

export const listTraces = (projectId: number, filter: TraceFilter, limit: number, cursor?: string, signal?: AbortSignal): Promise<Page<TraceRecord>> =>
  page<TraceRecord>('/logs/project', { id: projectId, ...filter, limit, cursor }, signal);

/**
 * Every trace record of one traceId in the project: one per application the trace crossed. An empty traceId is
 * refused (the promise rejects, nothing is sent): the query would drop it and list every trace of the project.
 */
export async function traceRecords(projectId: number, traceId: string, signal?: AbortSignal): Promise<TraceRecord[]> {
  if (typeof traceId !== 'string' || !traceId.trim()) throw new TypeError('traceRecords: a traceId is required');
  return api<TraceRecord[]>('GET', withQuery('/logs/project', { id: projectId, traceId }), undefined, signal);
}

export interface LogFilter {
  projectId?: number; applicationId?: number; level?: string; from?: string; to?: string; traceId?: string; q?: string;
  /** Attributes of the log: `key=value` or `key` (present), all of them. */
  attr?: readonly string[];
}

export const listLogs = (filter: LogFilter, limit: number, cursor?: string, signal?: AbortSignal): Promise<Page<LogEntry>> =>
  page<LogEntry>('/ingest/logs', { ...filter, limit, cursor }, signal);

export const logFacets = (query: LogFilter & { projectId: number; key: readonly string[] }, signal?: AbortSignal) =>
  api<LogFacets>('GET', withQuery('/logs/facets', { ...query }), undefined, signal);

export const logVolume = (query: { projectId: number; applicationId?: number; level?: string; from?: string; to?: string }, signal?: AbortSignal) =>
  api<LogVolume>('GET', withQuery('/logs/volume', query), undefined, signal);

export const metrics = (query: { projectId?: number; applicationId?: number; from?: string; to?: string }, signal?: AbortSignal) =>
  api<MetricsReport>('GET', withQuery('/metrics', query), undefined, signal);

/** Request metrics per operation of each application (the `limit` busiest, 1-500, default 100; same window rules as GET /metrics). */
export const operationMetrics = (query: { projectId?: number; applicationId?: number; from?: string; to?: string; limit?: number }, signal?: AbortSignal) =>
  api<OperationMetricsReport>('GET', withQuery('/metrics/operations', query), undefined, signal);

/**
 * The service map of a project: its applications and the calls between them in the window (same window rules as
 * GET /metrics: at most 90 days; the last hour without `from`).
 */
export const serviceMap = (query: { projectId: number; from?: string; to?: string }, signal?: AbortSignal) =>
  api<ServiceMapReport>('GET', withQuery('/metrics/services', query), undefined, signal);

export const listTenants = (organizationId: number) => api<Tenant[]>('GET', withQuery('/ai/tenant', { organizationId }));
export const createTenant = (organizationId: number, name: string) => api<Tenant>('POST', '/ai/tenant', { organizationId, name });
export const listDocuments = (tenantId: string, signal?: AbortSignal) =>
  api<DocumentRecord[]>('GET', withQuery('/ai/docs', { TenantId: tenantId }), undefined, signal);
/** Back to `stored` (202 with the record): out of search until it is ready again. */
export const reprocessDocument = (docId: string) => api<DocumentRecord>('POST', `/ai/docs/${encodeURIComponent(docId)}/reprocess`);
export const deleteDocument = (docId: string) => api<void>('DELETE', `/ai/docs/${encodeURIComponent(docId)}`);
/** The passages of the tenant's ready documents holding the query's words, best first (limit 1-50, default 10). */
export const searchDocuments = (tenantId: string, query: string, limit?: number, signal?: AbortSignal) =>
  api<SearchAnswer>('POST', withQuery('/ai/search', { TenantId: tenantId }), { query, ...(limit ? { limit } : {}) }, signal);
