/**
 * Migrations 14 to 16 (schema.ts): the trace records' root service and operation, the trace filters' indexes, and
 * the log volume's rollups.
 */
/** Migration 20's tables, index and column (schema.ts): the calls between applications. */
export const UNDO_MIGRATION_20 = `DROP TABLE call_rollups; DROP TABLE call_rollups_hourly; DROP INDEX spans_waiting_caller;
  ALTER TABLE spans DROP COLUMN caller_app;`;

/** Migration 19's tables and column (schema.ts): the per-operation rollups; 20's too (not idempotent). */
export const UNDO_MIGRATION_19 = `${UNDO_MIGRATION_20} DROP TABLE operation_rollups; DROP TABLE operation_rollups_hourly; DROP TABLE operation_names;
  ALTER TABLE spans DROP COLUMN operation;`;

/** Migration 17's table and column (schema.ts): the attribute postings of trace records; 19's too (not idempotent). */
export const UNDO_MIGRATION_17 = `${UNDO_MIGRATION_19} DROP TABLE trace_attrs; ALTER TABLE traces DROP COLUMN attrs;`;

/** Migration 18's objects (schema.ts): the attribute index of logs. */
export const UNDO_MIGRATION_18 = 'DROP TRIGGER logs_attrs_delete; DROP TABLE logs_attrs; DROP TABLE logs_attrs_state;';

export const UNDO_MIGRATION_14 = `${UNDO_MIGRATION_18} ${UNDO_MIGRATION_17} DROP TABLE IF EXISTS log_rollups; DROP INDEX traces_service; DROP INDEX traces_operation; DROP INDEX traces_errors;
  ALTER TABLE traces DROP COLUMN root_service; ALTER TABLE traces DROP COLUMN root_operation;`;

/** Migration 13's table and column (schema.ts): span contexts. */
export const UNDO_MIGRATION_13 = 'DROP TABLE span_contexts; ALTER TABLE spans DROP COLUMN context_id;';

/** Migration 11's columns (schema.ts), dropped before UNDO_MIGRATION_10's. */
export const UNDO_MIGRATION_11 = `ALTER TABLE chunks DROP COLUMN vector; ${['chunk_tokens', 'chunk_overlap', 'embedding_model'].map((c) => `ALTER TABLE documents DROP COLUMN ${c};`).join(' ')}`;

/**
 * What the migration tests drop, besides their own, to take a database back to an earlier version: the objects of
 * the migrations after 9 (schema.ts), which cannot be made idempotent (columns added to `documents`).
 */
export const UNDO_MIGRATION_10 = `DROP TABLE chunks_fts; DROP TABLE chunks; DROP INDEX documents_waiting; DROP INDEX documents_deleting;
  ${['attempts', 'claim', 'lease_until_ms', 'chunk_count', 'characters', 'pages', 'error_code', 'error_message', 'chunks_claim'].map((c) => `ALTER TABLE documents DROP COLUMN ${c};`).join(' ')}`;
