/** The records of the interface (interface.md "Resources and their fields" and contract.md). */

export interface Span {
  timestamp: string;
  requestMethod: string;
  requestURL?: string;
  responseStatus?: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  durationMs?: number;
  /** Unknown extra fields are kept. */
  [extra: string]: unknown;
}

export interface TraceRecord {
  id: string;
  projectId: number;
  applicationId: number;
  traceId: string;
  timestamp: string;
  telemetry: Span[];
}

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A log as it is ingested (no id, projectId, applicationId). */
export interface LogInput {
  traceId?: string;
  level: LogLevel;
  type: string;
  message: string;
  timestamp: string;
  clientTimestamp: string;
  [extra: string]: unknown;
}

export interface LogEntry extends LogInput {
  id: string;
  projectId: number;
  applicationId: number;
}

/** Which application and project a batch belongs to, resolved from the API key. */
export interface Origin {
  applicationId: number;
  projectId: number;
}

/** What ingest publishes and the writer persists. */
export interface SpanBatchMessage extends Origin {
  kind: 'spans';
  /** Client's Idempotency-Key header, if any. */
  idempotencyKey?: string;
  receivedAt: string;
  spans: Span[];
}

export interface LogBatchMessage extends Origin {
  kind: 'logs';
  idempotencyKey?: string;
  receivedAt: string;
  /** Ids are assigned at ingest so that a redelivered batch is stored once. */
  logs: LogEntry[];
}

export type TelemetryMessage = SpanBatchMessage | LogBatchMessage;

export interface User {
  id: string;
  email: string;
  name: string;
}

export type Role = 'owner' | 'admin' | 'member';

export interface Organization {
  id: number;
  name: string;
}

export interface Membership extends Organization {
  role: Role;
}

/** What each role may do: a role includes the powers of the roles below it (docs/api.md, "Roles"). */
export const ROLE_RANK: Readonly<Record<Role, number>> = { member: 1, admin: 2, owner: 3 };

/** A member of an organization, as its members see them. */
export interface Member {
  user: User;
  role: Role;
  /** The user who created the organization: only they can lower their own role or remove themselves. */
  creator: boolean;
}

/** An invitation to join an organization, as the invitee sees it. */
export interface Invitation {
  id: string;
  organization: Organization;
  role: Role;
  invitedBy: { name: string; email: string } | null;
  createdAt: string;
  expiresAt: string;
}

/** A pending invitation, as the organization's owners see it. */
export interface PendingInvitation {
  id: string;
  email: string;
  role: Role;
  expiresAt: string;
  /** The owner who sent it (an invitation counts only while its inviter is an owner). */
  invitedBy: { id: string; name: string; email: string };
}

export interface Project {
  id: number;
  name: string;
  organizationId: number;
}

export interface Application {
  id: number;
  name: string;
  projectId: number;
}

export interface ApiKey {
  id: string;
  applicationId: number;
  projectId: number;
  name: string;
  prefix: string;
  createdAt: string;
  revokedAt?: string | null;
}

export interface Tenant {
  id: string;
  name: string;
  organizationId: number;
}

/** `stored` (queued), `processing`, `ready` (searchable) or `failed` (contract, "AI knowledge"). */
export type DocumentStatus = 'stored' | 'processing' | 'ready' | 'failed';

/** Why a document failed (contract, "AI knowledge"). */
export type DocumentFailureCode = 'encrypted' | 'no_text' | 'unreadable' | 'too_large' | 'timeout';

export interface DocumentFailure {
  code: DocumentFailureCode;
  message: string;
}

export interface DocumentRecord {
  id: string;
  tenantId: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  status: DocumentStatus | string;
  createdAt: string;
  /** When ready: how many chunks and characters of text it gave; for a PDF, its pages. */
  chunks?: number;
  characters?: number;
  pages?: number;
  /** When failed. */
  error?: DocumentFailure;
}
