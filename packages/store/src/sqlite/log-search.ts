import { searchTrigrams } from '../trigrams.js';
import type { StatementCache } from './paging.js';

/**
 * How a read with `messageContains` finds its logs (docs/architecture.md, "Log search"). `logs_fts` (the log
 * search migration) is a contentless FTS5 table with the trigram tokenizer, one row per log under the log's rowid.
 * It only narrows candidates: the trigram tokenizer folds the case of every script (ASCII only is the contract), so the exact
 * `instr(lower(message), lower(text))` test stays the final filter whichever way the candidates come.
 *
 * - `scan`: walk the (project_id, ts, id) index newest first and test each log. Cheap when the text is common:
 *   the first page is found after ~100 / frequency logs.
 * - `index`: read every log whose message holds all the text's trigrams from `logs_fts`, and every log above the
 *   index's watermark (not indexed yet: log-indexer.ts), keep those passing the filters and sort them (top-N).
 *   Cheap when the text is rare and the index keeps up: the work is the number of candidates.
 *
 * The choice compares the two costs. With N logs (max rowid, read from the primary key), c candidates and a page
 * of L logs, `index` reads c rows at random places and `scan` ~L·N/c rows in order, each ~COST_RATIO times
 * cheaper: `index` wins while c² < L·N / COST_RATIO, and the probe counts candidates only up to that bound
 * (~14k for L = 101 at 10M logs). With a `from` (the live tail) the window may hold fewer logs still: then `scan`.
 */
export type LogPlan = 'scan' | 'index';

/** How much more a candidate read through logs_fts costs than a log read down the time index (bench/logs-search). */
export const COST_RATIO = 5;

/** The most trigrams of a text put in the FTS query (searchTrigrams). */
const MAX_TRIGRAMS = 8;

/**
 * The FTS5 query for `text`: its trigrams, each a quoted string (a `"` doubled), joined with AND, so nothing of
 * the text is read as FTS5 syntax (OR, NEAR, *, ^, column filters). Undefined for a text the index cannot
 * serve: under 3 characters (code points, as the tokenizer counts), or holding NUL.
 */
export function trigramQuery(text: string): string | undefined {
  if (text.includes('\u0000')) return undefined;
  const grams = searchTrigrams(text, MAX_TRIGRAMS);
  return grams.length === 0 ? undefined : grams.map((gram) => `"${gram.replaceAll('"', '""')}"`).join(' AND ');
}

/** Which index narrows the candidates: the message's trigrams (`logs_fts`) or the attributes' pairs (`logs_attrs`, log-attrs.ts). */
export type SearchIndex = 'text' | 'attrs';

/** Each index's FTS5 table and the table of its watermark (log-indexer.ts). */
const TABLES: Record<SearchIndex, { fts: string; state: string }> = {
  text: { fts: 'logs_fts', state: 'logs_fts_state' },
  attrs: { fts: 'logs_attrs', state: 'logs_attrs_state' },
};

/** What the choice needs of the read: its page size, and the window and projects when it has a `from`. */
export interface PlanInput {
  match: string | undefined;
  /** The index `match` is for (default: the message's). */
  index?: SearchIndex;
  limit: number;
  projects: readonly number[];
  from?: number | undefined;
  to?: number | undefined;
}

/** Picks the plan of a read (see above). */
export function chooseLogPlan(cache: StatementCache, input: PlanInput): LogPlan {
  if (input.match === undefined) return 'scan';
  // A window of at most COST_RATIO pages of logs (a live tail's few seconds) costs less than any probe.
  if (input.from !== undefined && windowRows(cache, input, COST_RATIO * input.limit) <= COST_RATIO * input.limit) return 'scan';
  const total = cache.get<number | null>('SELECT max(rowid) FROM logs').pluck().get() ?? 0;
  const cap = Math.ceil(Math.sqrt((Math.min(input.limit, total) * total) / COST_RATIO));
  // The logs above the index's watermark (log-indexer.ts) are candidates too: each is read and tested.
  const { fts, state } = TABLES[input.index ?? 'text'];
  const unindexed = Math.max(0, total - cache.get<number>(`SELECT indexed_upto FROM ${state} WHERE id = 1`).pluck().get()!);
  if (unindexed > cap) return 'scan';
  const candidates = unindexed + cache.get<number>(`SELECT count(*) FROM (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ? LIMIT ?)`)
    .pluck().get(input.match, cap + 1 - unindexed)!;
  if (candidates > cap) return 'scan';
  if (input.from === undefined) return 'index';
  const bound = candidates * COST_RATIO;
  return windowRows(cache, input, bound) > bound ? 'index' : 'scan';
}

/** The logs of the read's projects in its window, counted up to `bound` + 1 (index only: project_id, ts). */
function windowRows(cache: StatementCache, input: PlanInput, bound: number): number {
  const inWindow = cache.get<number>(
    'SELECT count(*) FROM (SELECT 1 FROM logs WHERE project_id = ? AND ts >= ? AND ts < ? LIMIT ?)').pluck();
  let rows = 0;
  for (const projectId of input.projects) {
    rows += inWindow.get(projectId, input.from, input.to ?? Number.MAX_SAFE_INTEGER, bound + 1 - rows)!;
    if (rows > bound) break;
  }
  return rows;
}

/**
 * The FROM clause of a page read by `plan`, and its parameters. For `index`: the candidates first (CROSS JOIN keeps
 * that order), those of `logs_fts` and the logs above its watermark, read in one statement so that a step of the
 * indexer between two pages neither loses nor repeats a log. A scan with a level (and no trace id, whose index is
 * narrower) walks that level's logs only (SQLite, without statistics, would rather take the time range of all).
 */
export function logsFrom(plan: LogPlan, level: boolean, match: string | undefined, index: SearchIndex = 'text'): { sql: string; params: unknown[] } {
  if (plan === 'index') {
    const { fts, state } = TABLES[index];
    return {
      sql: `(SELECT rowid AS r FROM ${fts} WHERE ${fts} MATCH ?
        UNION ALL SELECT rowid FROM logs WHERE rowid > (SELECT indexed_upto FROM ${state} WHERE id = 1)) f
        CROSS JOIN logs l ON l.rowid = f.r`,
      params: [match],
    };
  }
  return { sql: level ? 'logs l INDEXED BY logs_project_level_ts' : 'logs l', params: [] };
}
