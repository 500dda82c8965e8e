import type { StatementCache } from './paging.js';

/**
 * How a read with `messageContains` finds its logs (docs/architecture.md, "Log search"). `logs_fts` (migration 4)
 * is a contentless FTS5 table with the trigram tokenizer, one row per log under the log's rowid. It only narrows
 * candidates: the trigram tokenizer folds the case of every script (ASCII only is the contract), so the exact
 * `instr(lower(message), lower(text))` test stays the final filter whichever way the candidates come.
 *
 * - `scan`: walk the (project_id, ts, id) index newest first and test each log. Cheap when the text is common:
 *   the first page is found after ~100 / frequency logs.
 * - `index`: read every log whose message holds all the text's trigrams from `logs_fts`, keep those passing the
 *   filters and sort them (top-N). Cheap when the text is rare: the work is the number of candidates.
 *
 * A probe counts the candidates up to CANDIDATE_CAP and picks `index` below it. With N logs and a text of
 * frequency f, `index` costs ~f·N rows and `scan` ~100/f: both stay under ~sqrt(100·N) rows (~32k at 10M).
 */
export type LogPlan = 'scan' | 'index';

/** Candidates above which a text counts as common (see above; measured in bench/logs-search). */
export const CANDIDATE_CAP = 30_000;

/** The most trigrams of a text put in the FTS query: the first, the last and evenly spaced ones between. */
const MAX_TRIGRAMS = 8;

/**
 * The FTS5 query for `text`: its trigrams, each a quoted string (a `"` doubled), joined with AND, so nothing of
 * the text is read as FTS5 syntax (OR, NEAR, *, ^, column filters). Undefined for a text the index cannot
 * serve: under 3 characters (code points, as the tokenizer counts), or holding NUL.
 */
export function trigramQuery(text: string): string | undefined {
  const chars = Array.from(text);
  if (chars.length < 3 || text.includes('\u0000')) return undefined;
  const all: string[] = [];
  for (let i = 0; i + 3 <= chars.length; i++) all.push(chars.slice(i, i + 3).join(''));
  const distinct = [...new Set(all)];
  const chosen = distinct.length <= MAX_TRIGRAMS
    ? distinct
    : Array.from({ length: MAX_TRIGRAMS }, (_, k) => distinct[Math.round((k * (distinct.length - 1)) / (MAX_TRIGRAMS - 1))]!);
  return [...new Set(chosen)].map((gram) => `"${gram.replaceAll('"', '""')}"`).join(' AND ');
}

/** Picks the plan of a read whose text gave `match` (undefined: the index cannot serve it). */
export function chooseLogPlan(cache: StatementCache, match: string | undefined): LogPlan {
  if (match === undefined) return 'scan';
  const candidates = cache.get<number>(
    'SELECT count(*) FROM (SELECT rowid FROM logs_fts WHERE logs_fts MATCH ? LIMIT ?)').pluck().get(match, CANDIDATE_CAP + 1)!;
  return candidates <= CANDIDATE_CAP ? 'index' : 'scan';
}

/** The FROM clause of a page read by `plan`: `logs_fts` first (CROSS JOIN keeps that order) for `index`. */
export function logsFrom(plan: LogPlan): string {
  return plan === 'index' ? 'logs_fts f CROSS JOIN logs l ON l.rowid = f.rowid' : 'logs l';
}
