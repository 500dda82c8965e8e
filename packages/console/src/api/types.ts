/**
 * The shapes the public HTTP API answers with (docs/api.md, ../shared/seed/interface.md), as a client reads them.
 * Written here rather than imported from @lantern/domain on purpose: the console depends on the public API only,
 * like any other client (the SDK does the same), so it is typed defensively (a level is any string, a parent may be
 * absent) and a server-side refactor cannot change what it compiles against. The browser tests check both agree.
 */

export interface User { id: string; email: string; name: string }
export interface Organization { id: number; name: string; role?: 'owner' | 'admin' | 'member' }
export interface Project { id: number; name: string; organizationId: number }
export interface Application { id: number; name: string; projectId: number }
export interface ApiKey { id: string; applicationId: number; projectId: number; name: string; prefix: string; createdAt: string; key?: string }

export interface Span {
  timestamp: string;
  requestMethod: string;
  requestURL?: string;
  responseStatus?: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string | null;
  durationMs?: number;
  [extra: string]: unknown;
}

export interface TraceRecord { id: string; projectId: number; applicationId: number; traceId: string; timestamp: string; telemetry: Span[] }

export interface LogEntry {
  id: string;
  projectId: number;
  applicationId: number;
  traceId?: string | null;
  level: string;
  type: string;
  message: string;
  timestamp: string;
  clientTimestamp: string;
  [extra: string]: unknown;
}

/** One bucket of GET /metrics' series: rate and percentiles are null when the bucket has no requests. */
export interface MetricsPoint {
  timestamp: string;
  requests: number;
  errors: number;
  errorRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}
export interface ApplicationMetrics {
  applicationId: number;
  projectId: number;
  requests: number;
  errors: number;
  errorRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  series: MetricsPoint[];
}
export interface MetricsReport { from: string; to: string; bucketMs: number; applications: ApplicationMetrics[] }

/**
 * One row of GET /metrics/operations: an application's operation (its entry spans' OpenTelemetry name, or method
 * and route, as GET /logs/project `operation` finds their traces) with its totals and series. `operation: null` is
 * the application's other operations (past the 200 names an application's hour keeps, or entry spans without a name).
 */
export interface OperationMetrics {
  applicationId: number;
  projectId: number;
  operation: string | null;
  requests: number;
  /** Requests per minute over the part of the window that has passed (2 decimals). */
  ratePerMinute: number;
  errors: number;
  errorRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  series: MetricsPoint[];
}
/** GET /metrics/operations: the `limit` busiest operations of the window; `total` counts them all. */
export interface OperationMetricsReport { from: string; to: string; bucketMs: number; total: number; operations: OperationMetrics[] }

/** An application on the service map (GET /metrics/services): its entry spans in the window; 0 requests for one that only calls. */
export interface ServiceMapNode {
  applicationId: number;
  requests: number;
  errors: number;
  /** Rounded to 0.01 by the API: the console shows errors ÷ requests instead. */
  errorRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}
/** Calls from one application to another: the callee's entry spans whose parent is a span of the caller. */
export interface ServiceMapEdge {
  callerApplicationId: number;
  calleeApplicationId: number;
  calls: number;
  errors: number;
  errorRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}
export interface ServiceMapReport { from: string; to: string; nodes: ServiceMapNode[]; edges: ServiceMapEdge[] }

export interface Tenant { id: string; name: string; organizationId: number }
export interface DocumentRecord {
  id: string; tenantId: string; filename: string; contentType: string; size: number; sha256: string; status: string; createdAt: string;
  /** When ready. */
  chunks?: number; characters?: number; pages?: number;
  /** When failed. */
  error?: { code: string; message: string };
}

/** One passage of `POST /ai/search`: a chunk of a ready document, its matched words as [start, end) offsets. */
export interface SearchHit {
  documentId: string; filename: string; chunkIndex: number;
  /** For a PDF: the page of the first highlight, and [first, last] pages of the chunk. */
  page?: number; pages?: [number, number];
  /** Relative to the best result (1). */
  score: number;
  text: string;
  highlights: [number, number][];
}
export interface SearchAnswer { query: string; results: SearchHit[] }

/** A page of a list read: the items and the cursor of the next page (absent on the last page). */
export interface Page<T> { items: T[]; nextCursor?: string }

/** GET /logs/facets: the top values of chosen keys among the newest logs that match (at most 10,000). */
export interface LogFacets {
  sampled: number;
  complete: boolean;
  facets: Array<{ key: string; values: Array<{ value: string; count: number }>; others: number; missing: number }>;
}

/** GET /logs/volume: a window's logs per bucket and level, and per level and application in all. */
export interface LogVolume {
  from: string; to: string; bucketMs: number; total: number;
  levels: Array<{ level: string; count: number }>;
  applications: Array<{ applicationId: number; count: number }>;
  buckets: Array<{ timestamp: string; total: number; levels: Record<string, number> }>;
}
