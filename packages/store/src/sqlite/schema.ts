import type { Database } from 'better-sqlite3';
import { backfillRootNames } from './root-names.js';
import { backfillTraceAttrs } from './trace-attrs.js';
import { registerLogAttrs } from './log-attrs.js';

/**
 * The SQLite schema, as an ordered list of migrations. `PRAGMA user_version` records how many have run;
 * opening a database runs the missing ones, each in its own transaction. Never edit a released migration:
 * append a new one.
 *
 * Telemetry tables carry no foreign keys on purpose: the writer resolves application and project from an
 * API key, and a foreign-key lookup per span would cost a B-tree search per row on the hot path.
 * Timestamps are epoch milliseconds (INTEGER) in `ts`/`*_ms` columns.
 *
 * Span identity is (application, trace, span id): a resent span always carries its trace id, and this key
 * keeps a trace's spans side by side, so a batch of 500 spans in 50 traces dirties ~50 index pages instead
 * of ~500 for a key on the random span id alone (measured: 33k -> 69k spans/s at 1M spans). Traces are
 * WITHOUT ROWID for the same reason (one B-tree per insert, not two).
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    email_lower TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_ms INTEGER NOT NULL
  );
  CREATE TABLE organizations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created_ms INTEGER NOT NULL
  );
  CREATE TABLE memberships (
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    PRIMARY KEY (organization_id, user_id)
  ) WITHOUT ROWID;
  CREATE INDEX memberships_user ON memberships (user_id, organization_id);
  CREATE TABLE projects (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL
  );
  CREATE INDEX projects_organization ON projects (organization_id, id);
  CREATE TABLE applications (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name TEXT NOT NULL
  );
  CREATE INDEX applications_project ON applications (project_id, id);
  CREATE TABLE api_keys (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    application_id INTEGER NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_ms INTEGER NOT NULL,
    revoked_ms INTEGER
  );
  CREATE INDEX api_keys_application ON api_keys (application_id, seq);

  CREATE TABLE spans (
    application_id INTEGER NOT NULL,
    span_id TEXT NOT NULL,
    project_id INTEGER NOT NULL,
    trace_id TEXT NOT NULL,
    ts INTEGER NOT NULL,
    root_controller INTEGER NOT NULL,
    duration_ms INTEGER,
    status INTEGER,
    data TEXT NOT NULL,
    PRIMARY KEY (application_id, trace_id, span_id)
  );
  CREATE INDEX spans_root ON spans (project_id, ts) WHERE root_controller = 1;
  CREATE TABLE traces (
    application_id INTEGER NOT NULL,
    trace_id TEXT NOT NULL,
    id TEXT NOT NULL,
    project_id INTEGER NOT NULL,
    ts INTEGER NOT NULL,
    has_root INTEGER NOT NULL DEFAULT 0,
    root_duration_ms INTEGER,
    root_status INTEGER,
    PRIMARY KEY (application_id, trace_id)
  ) WITHOUT ROWID;
  CREATE INDEX traces_project_ts ON traces (project_id, ts, id);
  CREATE INDEX traces_application_ts ON traces (application_id, ts, id);
  CREATE TABLE logs (
    id TEXT PRIMARY KEY,
    project_id INTEGER NOT NULL,
    application_id INTEGER NOT NULL,
    trace_id TEXT,
    level TEXT NOT NULL,
    ts INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX logs_project_ts ON logs (project_id, ts, id);
  CREATE INDEX logs_trace ON logs (project_id, trace_id, ts, id) WHERE trace_id IS NOT NULL;
  CREATE TABLE idempotency_keys (
    application_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (application_id, kind, key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);

  CREATE TABLE tenants (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    UNIQUE (organization_id, name)
  );
  CREATE TABLE documents (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    filename TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    status TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    object_key TEXT NOT NULL
  );
  CREATE INDEX documents_tenant ON documents (tenant_id, created_ms, id);
  `,
  // 2: entry spans. A service called by another instrumented service starts its part of the trace with a
  // `controller:` span whose parent is the caller's span (in another application): that span is the
  // application's root too, for metrics and for the trace record's root columns. has_root becomes a rank:
  // 2 = a span without parent, 1 = a controller span whose parent is in another application, 0 = none yet.
  // Between rank-1 candidates the earliest (root_ts) wins, then the longest: an entry span encloses the
  // controller spans nested in it, which may arrive first. Traces of called services already stored get their
  // root from their first entry span. Rewrites every span row once: allow for the time and the WAL's size.
  `
  ALTER TABLE spans ADD COLUMN parent_span_id TEXT;
  ALTER TABLE spans ADD COLUMN controller INTEGER NOT NULL DEFAULT 0;
  UPDATE spans SET parent_span_id = json_extract(data, '$.parentSpanId'),
    controller = coalesce(substr(json_extract(data, '$.requestMethod'), 1, 11) = 'controller:', 0);
  DROP INDEX spans_root;
  ALTER TABLE spans DROP COLUMN root_controller;
  CREATE INDEX spans_controller ON spans (project_id, ts) WHERE controller = 1;
  ALTER TABLE traces ADD COLUMN root_ts INTEGER;
  UPDATE traces SET has_root = 2 WHERE has_root = 1;
  UPDATE traces SET has_root = 1, root_ts = e.ts, root_duration_ms = e.duration_ms, root_status = e.status
  FROM (
    SELECT s.application_id, s.trace_id, s.ts, s.duration_ms, s.status,
      row_number() OVER (PARTITION BY s.application_id, s.trace_id ORDER BY s.ts, s.duration_ms DESC) AS n
    FROM spans s
    WHERE s.controller = 1 AND s.parent_span_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM spans parent
      WHERE parent.application_id = s.application_id AND parent.trace_id = s.trace_id AND parent.span_id = s.parent_span_id)
  ) e
  WHERE e.n = 1 AND traces.application_id = e.application_id AND traces.trace_id = e.trace_id AND traces.has_root = 0;
  `,
  // 3: the root span's requestURL, beside its duration and status, for the `url` filter of trace reads. Records
  // already stored take it from the span their root columns came from: for a span without parent (rank 2) the
  // first one stored (lowest rowid) whose duration and status are the record's; for an entry span (rank 1) the
  // controller span with a parent at root_ts with that duration and status. A record without root keeps NULL
  // (never matches). Reads each rooted record's spans through the primary key and rewrites those records once.
  `
  ALTER TABLE traces ADD COLUMN root_url TEXT;
  UPDATE traces SET root_url = (
    SELECT CASE WHEN json_type(s.data, '$.requestURL') = 'text' THEN json_extract(s.data, '$.requestURL') END
    FROM spans s
    WHERE s.application_id = traces.application_id AND s.trace_id = traces.trace_id
      AND s.duration_ms IS traces.root_duration_ms AND s.status IS traces.root_status
      AND CASE WHEN traces.has_root = 2 THEN s.parent_span_id IS NULL
        ELSE s.controller = 1 AND s.parent_span_id IS NOT NULL AND s.ts = traces.root_ts END
    ORDER BY s.rowid LIMIT 1)
  WHERE has_root > 0;
  `,
  // 4: metrics rollups. Per (application, minute): the entry spans' count, errors (status >= 500) and latency
  // sketch (packages/domain/src/sketch.ts: its varint bytes, or its JSON array [zeros, key, count, ...] as the
  // backfill writes it, until the row's next update), kept up to date as spans
  // are written (ingest.ts) and purged (purge.ts), so GET /metrics reads one row per application and minute
  // instead of every span. The key leads with the project: a read is one range per visible project. Backfilled
  // here from the entry spans already stored (the sketch's bucket key `ceil(ln(d) / ln(1.01 / 0.99))` needs
  // SQLite's math functions, which better-sqlite3 builds in). Reads every controller span once.
  `
  CREATE TABLE metric_rollups (
    project_id INTEGER NOT NULL,
    minute INTEGER NOT NULL,
    application_id INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    sketch BLOB NOT NULL,
    PRIMARY KEY (project_id, minute, application_id)
  ) WITHOUT ROWID;
  INSERT INTO metric_rollups (project_id, minute, application_id, requests, errors, sketch)
  SELECT project_id, minute, application_id, sum(n), sum(e),
    '[' || coalesce(sum(n) FILTER (WHERE k IS NULL), 0)
      || coalesce(group_concat(',' || k || ',' || n, '' ORDER BY k) FILTER (WHERE k IS NOT NULL), '') || ']'
  FROM (
    SELECT s.project_id, s.application_id, s.ts - ((s.ts % 60000) + 60000) % 60000 AS minute,
      CASE WHEN s.duration_ms >= 1 THEN CAST(ceil(ln(s.duration_ms) / ln(1.01 / 0.99)) AS INTEGER) END AS k,
      count(*) AS n, sum(coalesce(s.status, 0) >= 500) AS e
    FROM spans s
    WHERE s.controller = 1 AND (s.parent_span_id IS NULL OR NOT EXISTS (SELECT 1 FROM spans parent
      WHERE parent.application_id = s.application_id AND parent.trace_id = s.trace_id AND parent.span_id = s.parent_span_id))
    GROUP BY 1, 2, 3, 4
  )
  GROUP BY project_id, minute, application_id;
  `,
  // 5: hourly metrics rollups beside the minute ones: per (application, hour), the sum of the hour's minute rows,
  // kept with them as spans are written (ingest.ts) and purged (purge.ts), so that a long window reads whole
  // hours from here and only its partial edges by the minute (rollups.ts, rollup-plan.ts). Backfilled as
  // migration 4 backfilled the minute rows, from the entry spans stored (the same rule, so the sum of the minute
  // rows); the sketch as JSON text until the row's next update. Reads every controller span once.
  `
  CREATE TABLE metric_rollups_hourly (
    project_id INTEGER NOT NULL,
    hour INTEGER NOT NULL,
    application_id INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    sketch BLOB NOT NULL,
    PRIMARY KEY (project_id, hour, application_id)
  ) WITHOUT ROWID;
  INSERT INTO metric_rollups_hourly (project_id, hour, application_id, requests, errors, sketch)
  SELECT project_id, hour, application_id, sum(n), sum(e),
    '[' || coalesce(sum(n) FILTER (WHERE k IS NULL), 0)
      || coalesce(group_concat(',' || k || ',' || n, '' ORDER BY k) FILTER (WHERE k IS NOT NULL), '') || ']'
  FROM (
    SELECT s.project_id, s.application_id, s.ts - ((s.ts % 3600000) + 3600000) % 3600000 AS hour,
      CASE WHEN s.duration_ms >= 1 THEN CAST(ceil(ln(s.duration_ms) / ln(1.01 / 0.99)) AS INTEGER) END AS k,
      count(*) AS n, sum(coalesce(s.status, 0) >= 500) AS e
    FROM spans s
    WHERE s.controller = 1 AND (s.parent_span_id IS NULL OR NOT EXISTS (SELECT 1 FROM spans parent
      WHERE parent.application_id = s.application_id AND parent.trace_id = s.trace_id AND parent.span_id = s.parent_span_id))
    GROUP BY 1, 2, 3, 4
  )
  GROUP BY project_id, hour, application_id;
  `,
  // 6 (self-contained: it only adds objects of its own, so it can take any later place in this list): log search.
  // A contentless FTS5 table (`content=''`: it keeps no copy of the messages) with the trigram tokenizer, one row
  // per log under the log's rowid. detail=none: no positions, so the index is a third of a positional one; a
  // text is looked up as the AND of its trigrams, a superset the exact filter then narrows (sqlite/log-search.ts).
  // Filled after the write, not in it (sqlite/log-indexer.ts): the indexer adds the logs above the watermark
  // `logs_fts_state.indexed_upto` in chunks and readers scan the logs above it, so this migration is instant
  // whatever the table holds, and the logs already stored are indexed in the background. No trigger on insert:
  // even one whose WHEN never holds made INSERT OR IGNORE into logs 2.5-5x slower (measured). On delete (the
  // retention purge) the trigger takes an indexed log out of the index, then lowers the watermark to the largest
  // rowid left if it is above it (whether the deleted logs were indexed or not; in one trigger, in that order):
  // the next insert reuses that rowid + 1, which must be above the watermark to be indexed.
  // The rowid of `logs` (a table with a TEXT primary key) must stay stable: never VACUUM this database without
  // rebuilding logs_fts. And (project_id, level, ts, id): a common text with a rare level (`timeout` + `fatal`)
  // is found walking that level's logs newest first, not all of them (measured at 1M: 519 ms before).
  `
  CREATE VIRTUAL TABLE logs_fts USING fts5(message, content = '', contentless_delete = 1, detail = none,
    tokenize = 'trigram case_sensitive 0');
  CREATE TABLE logs_fts_state (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_upto INTEGER NOT NULL);
  INSERT INTO logs_fts_state (id, indexed_upto) VALUES (1, 0);
  CREATE TRIGGER logs_fts_delete AFTER DELETE ON logs BEGIN
    DELETE FROM logs_fts WHERE rowid = old.rowid AND old.rowid <= (SELECT indexed_upto FROM logs_fts_state WHERE id = 1);
    UPDATE logs_fts_state SET indexed_upto = (SELECT coalesce(max(rowid), 0) FROM logs)
    WHERE id = 1 AND indexed_upto > (SELECT coalesce(max(rowid), 0) FROM logs);
  END;
  CREATE INDEX logs_project_level_ts ON logs (project_id, level, ts, id);
  `,
  // 7 (self-contained: it only adds objects of its own, if absent, so it can take any later place in this list):
  // least privilege and revocable tokens. `user_tokens.version` is the `ver` claim of a user's tokens (raised by
  // sign-out and password change; no row: version 0); `organization_creators` the creator of each organization
  // created from now on (those created before have none: there every owner is equal); invitations wait for the
  // invitee, one per organization and email.
  `
  CREATE TABLE IF NOT EXISTS user_tokens (
    user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    version INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS organization_creators (
    organization_id INTEGER PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS invitations (
    id TEXT PRIMARY KEY,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    email_lower TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    invited_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    UNIQUE (organization_id, email_lower)
  );
  CREATE INDEX IF NOT EXISTS invitations_email ON invitations (email_lower, created_ms);
  CREATE INDEX IF NOT EXISTS invitations_expiry ON invitations (expires_ms);
  `,
  // 8: issue 18's upload dedupe: a tenant's document with the same bytes, found without reading its other rows.
  // IF NOT EXISTS: the migration tests take a database back to an earlier version by dropping later objects only.
  `
  CREATE INDEX IF NOT EXISTS documents_tenant_sha256 ON documents (tenant_id, sha256);
  `,
  // 9: the organizations a user created, counted for MAX_ORGANIZATIONS_PER_USER without reading the others.
  `
  CREATE INDEX IF NOT EXISTS organization_creators_user ON organization_creators (user_id);
  `,
  // 10: issue 15, documents processed: the queue lives in the documents (status, a claim with its lease, the
  // attempts), the results beside them (counts or the failure), and the chunks of ready documents in an FTS5 index
  // (BM25) whose `tenant` column (the tenant id's hex digits, one token) keeps each search inside one tenant. Chunks
  // carry the claim that wrote them; a ready document's `chunks_claim` names the ones searched (ai-processing.ts).
  // The index reads the text from `chunks` (external content); triggers keep them in step.
  `
  ALTER TABLE documents ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE documents ADD COLUMN claim TEXT;
  ALTER TABLE documents ADD COLUMN lease_until_ms INTEGER;
  ALTER TABLE documents ADD COLUMN chunk_count INTEGER;
  ALTER TABLE documents ADD COLUMN characters INTEGER;
  ALTER TABLE documents ADD COLUMN pages INTEGER;
  ALTER TABLE documents ADD COLUMN error_code TEXT;
  ALTER TABLE documents ADD COLUMN error_message TEXT;
  ALTER TABLE documents ADD COLUMN chunks_claim TEXT;
  CREATE INDEX IF NOT EXISTS documents_waiting ON documents (created_ms) WHERE status IN ('stored', 'processing');
  CREATE INDEX IF NOT EXISTS documents_deleting ON documents (id) WHERE status = 'deleting';
  CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    claim TEXT NOT NULL,
    tenant TEXT NOT NULL,
    chunk_index INTEGER NOT NULL,
    text TEXT NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    page_first INTEGER,
    page_last INTEGER,
    page_breaks TEXT,
    UNIQUE (document_id, claim, chunk_index)
  );
  CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(tenant, text, content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
  CREATE TRIGGER IF NOT EXISTS chunks_indexed AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, tenant, text) VALUES (new.id, new.tenant, new.text);
  END;
  CREATE TRIGGER IF NOT EXISTS chunks_unindexed AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, tenant, text) VALUES ('delete', old.id, old.tenant, old.text);
  END;
  `,
  // 11: issue 15, configurable chunking and semantic search: what a ready document's chunks were made with (NULL: before
  // this migration, the defaults of then: processing.ts UNRECORDED_SETTINGS), and each chunk's embedding as float32
  // bytes (NULL without semantic search). Instant: columns without defaults to write.
  `
  ALTER TABLE documents ADD COLUMN chunk_tokens INTEGER;
  ALTER TABLE documents ADD COLUMN chunk_overlap INTEGER;
  ALTER TABLE documents ADD COLUMN embedding_model TEXT;
  ALTER TABLE chunks ADD COLUMN vector BLOB;
  `,
  // 12: issue 15, the chunks' index merged in small steps by their writer (chunk-sweep.ts), not by FTS5 itself: its
  // automatic merges ran inside whichever chunk's insert filled a level, 18-28 ms each for a 10 MB PDF's chunks
  // on a quiet core, with a span commit waiting behind. crisismerge (16 segments at a level) still merges at once.
  `
  INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('automerge', 0);
  `,
  // 13: span contexts (span-rows.ts): the serviceName, resource and scope an OpenTelemetry resource and scope give
  // their spans, stored once per project and distinct text, not in every span's `data`. A span written before this
  // migration keeps them in `data` (context_id NULL). Instant: a new table and a column without a default.
  // `last_ms`: the latest timestamp of a span stored with the context, or of its batch if later; the retention purge
  // removes a context once that is before its cut-off (every span with it is then gone with its trace: a trace goes
  // when its earliest span is before the cut-off). A context made for spans that were all repeats keeps 0 and goes
  // at the next purge. AUTOINCREMENT: an id is never given again, so a span written between the purge's two steps
  // with a time and a batch both before its cut-off (a backlog older than the retention) can lose its context
  // until the next purge takes it too, never show another one.
  `
  CREATE TABLE IF NOT EXISTS span_contexts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL,
    data TEXT NOT NULL,
    last_ms INTEGER NOT NULL DEFAULT 0
  );
  CREATE UNIQUE INDEX IF NOT EXISTS span_contexts_text ON span_contexts (project_id, data);
  CREATE INDEX IF NOT EXISTS span_contexts_last ON span_contexts (project_id, last_ms);
  ALTER TABLE spans ADD COLUMN context_id INTEGER;
  `,
  // 14: issue 19, trace search by service and operation: the root span's serviceOf and operationOf
  // (@lantern/domain span-names.ts) beside its other root columns. Records already stored take them from their root
  // span after this runs (BACKFILLS, root-names.ts): reads each rooted record's root span once, rewrites those records.
  `
  ALTER TABLE traces ADD COLUMN root_service TEXT;
  ALTER TABLE traces ADD COLUMN root_operation TEXT;
  `,
  // 15: the indexes of the trace filters, each in the list's order (ts, id) within its key, so a filtered page reads
  // its own range, not the project's: service, operation, and the failed traces (`5xx`, or a code of it, tested on
  // them): partial, so only the few records that failed pay for it; the other classes are common enough for slices of
  // the time index (docs/benchmarks.md, "Trace search at 10M spans"). Built after the backfill, in one pass each.
  `
  CREATE INDEX IF NOT EXISTS traces_service ON traces (project_id, root_service, ts, id) WHERE root_service IS NOT NULL;
  CREATE INDEX IF NOT EXISTS traces_operation ON traces (project_id, root_operation, ts, id) WHERE root_operation IS NOT NULL;
  CREATE INDEX IF NOT EXISTS traces_errors ON traces (project_id, ts, id) WHERE root_status >= 500;
  `,
  // 16: issue 19, the log volume (GET /logs/volume): logs counted per (project, minute, application, level) as they are
  // written (ingest.ts) and purged (purge.ts), so a histogram or the level and application counts of a week read a
  // few thousand rows, not the week's logs. Backfilled here from the logs already stored: reads every log once.
  // And the failed traces' index for a database that took an earlier draft of 15 (a status-class index, dropped).
  `
  CREATE TABLE IF NOT EXISTS log_rollups (
    project_id INTEGER NOT NULL,
    minute INTEGER NOT NULL,
    application_id INTEGER NOT NULL,
    level TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (project_id, minute, application_id, level)
  ) WITHOUT ROWID;
  INSERT INTO log_rollups (project_id, minute, application_id, level, count)
    SELECT project_id, (ts / 60000) * 60000, application_id, level, count(*) FROM logs GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;
  DROP INDEX IF EXISTS traces_status_class;
  CREATE INDEX IF NOT EXISTS traces_errors ON traces (project_id, ts, id) WHERE root_status >= 500;
  `,
  // 17: issue 19, trace search by attribute (`attr`, ../attribute-pairs.ts): a record's attribute hashes in
  // `traces.attrs`, and one posting per (record, hash) at the record's (ts, id), the list's order within a hash
  // (trace-attrs.ts). Records already stored take theirs from their spans after this runs (BACKFILLS): reads every span once.
  `
  ALTER TABLE traces ADD COLUMN attrs BLOB;
  CREATE TABLE IF NOT EXISTS trace_attrs (
    project_id INTEGER NOT NULL,
    hash INTEGER NOT NULL,
    ts INTEGER NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (project_id, hash, ts, id)
  ) WITHOUT ROWID;
  `,
  // 18: issue 19, log search by attribute (`attr`, log-attrs.ts): a contentless FTS5 table of each log's key-value
  // hashes as words, filled after the write by the log indexer above its own watermark (log-indexer.ts), which starts
  // at 0: the logs already stored are indexed in the background, as logs_fts's were. Its delete trigger is
  // logs_fts_delete's, for this index.
  `
  CREATE VIRTUAL TABLE IF NOT EXISTS logs_attrs USING fts5(attrs, content = '', contentless_delete = 1, detail = none,
    tokenize = 'unicode61');
  CREATE TABLE IF NOT EXISTS logs_attrs_state (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_upto INTEGER NOT NULL);
  INSERT OR IGNORE INTO logs_attrs_state (id, indexed_upto) VALUES (1, 0);
  CREATE TRIGGER IF NOT EXISTS logs_attrs_delete AFTER DELETE ON logs BEGIN
    DELETE FROM logs_attrs WHERE rowid = old.rowid AND old.rowid <= (SELECT indexed_upto FROM logs_attrs_state WHERE id = 1);
    UPDATE logs_attrs_state SET indexed_upto = (SELECT coalesce(max(rowid), 0) FROM logs)
    WHERE id = 1 AND indexed_upto > (SELECT coalesce(max(rowid), 0) FROM logs);
  END;
  `,
  // 19: issue 19, metrics per operation (GET /metrics/operations, ../operation-rollups.ts): a controller span keeps
  // its operationOf ('' without a name; NULL in spans stored before, which these rollups never count), and the
  // entry spans are counted per (application, minute, operation) and (application, hour, operation) beside the
  // per-application rows, with the same rules (rollups.ts). `operation_names`: the names an application's hour
  // keeps, at most MAX_OPERATIONS_PER_HOUR (operation-names.ts). Starts empty: the metrics per operation begin
  // with the spans written after this version.
  `
  ALTER TABLE spans ADD COLUMN operation TEXT;
  CREATE TABLE IF NOT EXISTS operation_rollups (
    project_id INTEGER NOT NULL,
    minute INTEGER NOT NULL,
    application_id INTEGER NOT NULL,
    operation TEXT NOT NULL,
    requests INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    sketch BLOB NOT NULL,
    PRIMARY KEY (project_id, minute, application_id, operation)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS operation_rollups_hourly (
    project_id INTEGER NOT NULL,
    hour INTEGER NOT NULL,
    application_id INTEGER NOT NULL,
    operation TEXT NOT NULL,
    requests INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    sketch BLOB NOT NULL,
    PRIMARY KEY (project_id, hour, application_id, operation)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS operation_names (
    project_id INTEGER NOT NULL,
    hour INTEGER NOT NULL,
    application_id INTEGER NOT NULL,
    operation TEXT NOT NULL,
    PRIMARY KEY (project_id, hour, application_id, operation)
  ) WITHOUT ROWID;
  `,
  // 20: issue 19, the service map (GET /metrics/services, ../call-rollups.ts): a controller span with a parent keeps
  // who called it in `caller_app`: 0 its own application (no call), the calling application's id once the parent is
  // found in another application of the project, -1 while the parent is stored nowhere yet (waiting: indexed, so the
  // parent's writer finds it); NULL in spans stored before this version (never indexed, never counted). The calls
  // are counted per (called application, caller, minute) and (.., hour) when both spans are stored. Building the
  // partial index reads every span once; it starts (and mostly stays) nearly empty.
  `
  ALTER TABLE spans ADD COLUMN caller_app INTEGER;
  CREATE INDEX IF NOT EXISTS spans_waiting_caller ON spans (project_id, trace_id) WHERE caller_app = -1;
  CREATE TABLE IF NOT EXISTS call_rollups (
    project_id INTEGER NOT NULL,
    minute INTEGER NOT NULL,
    application_id INTEGER NOT NULL,
    caller_id INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    sketch BLOB NOT NULL,
    PRIMARY KEY (project_id, minute, application_id, caller_id)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS call_rollups_hourly (
    project_id INTEGER NOT NULL,
    hour INTEGER NOT NULL,
    application_id INTEGER NOT NULL,
    caller_id INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    sketch BLOB NOT NULL,
    PRIMARY KEY (project_id, hour, application_id, caller_id)
  ) WITHOUT ROWID;
  `,
];

/** Steps of a migration that SQL alone does not say well, run after its SQL, in its transaction (by version). */
const BACKFILLS: ReadonlyMap<number, (db: Database) => void> = new Map([[14, backfillRootNames], [17, backfillTraceAttrs]]);

export const SCHEMA_VERSION = MIGRATIONS.length;

/** How long a write waits for another connection's write lock before the store answers 503. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Connection settings: WAL (readers never block the writer), NORMAL sync (a commit survives a crash of the
 * process; only an OS crash or power loss can lose the last commits). Checkpoints run every ~40 MB of WAL
 * rather than SQLite's 4 MB: span ingest dirties index pages all over, and rarer checkpoints write each of
 * them once instead of many times (about +25 % spans/s measured). The WAL file is truncated back afterwards.
 */
export function configure(db: Database): void {
  registerLogAttrs(db);
  if (!db.memory) db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('temp_store = MEMORY');
  db.pragma('cache_size = -65536');
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('journal_size_limit = 67108864');
}

/** Runs the migrations this database has not seen yet. */
export function migrate(db: Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(`The database schema (version ${current}) is newer than this build knows (${SCHEMA_VERSION}).`);
  }
  for (let version = current; version < SCHEMA_VERSION; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      BACKFILLS.get(version + 1)?.(db);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}
