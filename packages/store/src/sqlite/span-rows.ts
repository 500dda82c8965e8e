import { operationOf, serviceOf } from '@lantern/domain';
import type { SpanBatchMessage } from '@lantern/domain';
import { pairsByTrace } from '../attribute-pairs.js';

/**
 * A span batch as the SQLite writer stores it: each span's columns and its `data` text already made, so that the
 * writer thread, the one thread every commit waits on, neither rebuilds the span objects from the structured clone
 * nor serialises them (docs/benchmarks.md, "OTLP in: where the time goes"). Made on the thread that posts the batch.
 *
 * The fields an OpenTelemetry resource and scope give every span under them (`serviceName`, `resource`, `scope`:
 * @lantern/otlp map-common.ts) are its context: one text per batch per distinct context, stored once per project in
 * `span_contexts` and referenced by the span's `context_id` (schema.ts, migration 13). An SDK's resource is about a
 * kilobyte that every span of a process repeats. Reads put the fields back (traces.ts, spanOfRow).
 */
export interface SpanRows {
  applicationId: number;
  projectId: number;
  receivedAt: string;
  idempotencyKey?: string;
  /** ROW_WIDTH values per span, at the offsets of Col. */
  rows: Array<string | number | null>;
  /** The distinct context texts of the batch (JSON objects), which `Col.context` indexes; -1: none. */
  contexts: string[];
  /**
   * The attribute hashes of each trace's spans (../attribute-pairs.ts): trace `traceIds[i]`'s are `hashes` from
   * `ends[i - 1]` (0 for the first) to `ends[i]`. Typed arrays: the writer thread receives them as one copy each.
   */
  pairs: { traceIds: string[]; ends: Uint32Array; hashes: Float64Array };
}

/** The offsets of a span's values in `rows`. */
export const Col = {
  spanId: 0,
  traceId: 1,
  /** Date.parse(timestamp), or null when it does not parse (the batch's time is used). */
  ts: 2,
  parentSpanId: 3,
  /** 1 for a `controller:` span, else 0. */
  controller: 4,
  durationMs: 5,
  responseStatus: 6,
  /** requestURL when a string, else null. */
  url: 7,
  /** The span's JSON without its context fields. */
  data: 8,
  context: 9,
  /** serviceOf(span) and operationOf(span) (@lantern/domain span-names.ts) of a span that can be a root, else null. */
  service: 10,
  operation: 11,
} as const;
export const ROW_WIDTH = 12;

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * The context text of a span, remembered for the last resource and scope seen: the spans mapped from one OTLP
 * resource and scope share those objects (map-common.ts forEachItem), so the batches of a request serialise each
 * context once.
 */
class ContextMemo {
  private resource: unknown;
  private scope: unknown;
  private serviceName: unknown;
  private text: string | undefined;

  textOf(serviceName: unknown, resource: unknown, scope: unknown): string {
    if (this.text === undefined || resource !== this.resource || scope !== this.scope || serviceName !== this.serviceName) {
      this.resource = resource;
      this.scope = scope;
      this.serviceName = serviceName;
      this.text = JSON.stringify({ serviceName, resource, scope });
    }
    return this.text;
  }
}

/**
 * The longest context text stored apart (its text is a key of the unique index of span_contexts); a span with a
 * larger one keeps it in its `data`. An OTLP resource and scope hold at most 64 KiB of text (@lantern/otlp bounds.ts),
 * an SDK's about one.
 */
export const MAX_CONTEXT_TEXT = 16 * 1024;

/** The rows of one batch (see SpanRows); the batch is left as it was. */
function rowsOf(batch: SpanBatchMessage, memo: ContextMemo): SpanRows {
  const rows: Array<string | number | null> = new Array(batch.spans.length * ROW_WIDTH);
  const contexts: string[] = [];
  const indexes = new Map<string, number>();
  let at = 0;
  for (const span of batch.spans) {
    const parsed = Date.parse(span.timestamp);
    const method = span.requestMethod;
    let data: string | undefined;
    let context = -1;
    if (span['serviceName'] !== undefined || span['resource'] !== undefined || span['scope'] !== undefined) {
      const { serviceName, resource, scope, ...own } = span;
      const text = memo.textOf(serviceName, resource, scope);
      if (text.length <= MAX_CONTEXT_TEXT) {
        context = indexes.get(text) ?? -1;
        if (context < 0) indexes.set(text, (context = contexts.push(text) - 1));
        data = JSON.stringify(own);
      }
    }
    data ??= JSON.stringify(span);
    rows[at + Col.spanId] = span.spanId;
    rows[at + Col.traceId] = span.traceId;
    rows[at + Col.ts] = Number.isNaN(parsed) ? null : parsed;
    rows[at + Col.parentSpanId] = span.parentSpanId ?? null;
    rows[at + Col.controller] = typeof method === 'string' && method.startsWith('controller:') ? 1 : 0;
    rows[at + Col.durationMs] = numberOrNull(span.durationMs);
    rows[at + Col.responseStatus] = numberOrNull(span.responseStatus);
    rows[at + Col.url] = typeof span.requestURL === 'string' ? span.requestURL : null;
    rows[at + Col.data] = data;
    rows[at + Col.context] = context;
    // Only a span without parent or a controller span can be a record's root (ingest.ts, rootRank): the others' names are never read.
    const rootCandidate = span.parentSpanId == null || rows[at + Col.controller] === 1;
    rows[at + Col.service] = rootCandidate ? serviceOf(span) ?? null : null;
    rows[at + Col.operation] = rootCandidate ? operationOf(span) ?? null : null;
    at += ROW_WIDTH;
  }
  const pairs = packed(pairsByTrace(batch.spans));
  const out: SpanRows = { applicationId: batch.applicationId, projectId: batch.projectId, receivedAt: batch.receivedAt, rows, contexts, pairs };
  if (batch.idempotencyKey !== undefined) out.idempotencyKey = batch.idempotencyKey;
  return out;
}

function packed(byTrace: Map<string, number[]>): SpanRows['pairs'] {
  const traceIds = [...byTrace.keys()];
  const ends = new Uint32Array(traceIds.length);
  let total = 0;
  traceIds.forEach((id, i) => (ends[i] = total += byTrace.get(id)!.length));
  const hashes = new Float64Array(total);
  let at = 0;
  for (const list of byTrace.values()) for (const h of list) hashes[at++] = h;
  return { traceIds, ends, hashes };
}

/** The hashes of each trace of a batch's SpanRows['pairs'], by trace id. */
export function pairsByTraceId(pairs: SpanRows['pairs']): Map<string, Float64Array> {
  return new Map(pairs.traceIds.map((id, i) => [id, pairs.hashes.subarray(i === 0 ? 0 : pairs.ends[i - 1]!, pairs.ends[i]!)]));
}

/** The rows of each batch (see SpanRows); the batches are left as they were. */
export function spanRowsOf(batches: readonly SpanBatchMessage[]): SpanRows[] {
  const memo = new ContextMemo();
  return batches.map((batch) => rowsOf(batch, memo));
}

/** A stored span's JSON with its context's fields put back (one parse, no object shared between spans). */
export function spanJson(data: string, context: string | null): string {
  if (context === null) return data;
  return data === '{}' ? context : `${data.slice(0, -1)},${context.slice(1)}`;
}
