import type { LogEntry } from '@lantern/domain';
import { LOG_NOT_ATTRIBUTES, valueText } from '@lantern/store';

/**
 * GET /logs/facets: the top values of chosen keys among the newest logs that match the filters, at most
 * FACET_SAMPLE of them: a field's facet as Kibana's Discover or HyperDX show one (from the documents at hand), not
 * an exact count of the window (the level and application counts are: GET /logs/volume). A key is one `attr` can
 * search (docs/api.md, "Attribute search"; a log's times, ids and message are not: they count as missing), looked
 * up in the log's own field, then its OpenTelemetry attribute, its resource's or scope's (`service.name` from
 * `serviceName` too), the first found; a value is its text as `attr` compares it, so a value picked is a filter.
 */

/** Logs read at most. */
export const FACET_SAMPLE = 10_000;
/** Values listed per key. */
export const TOP_VALUES = 10;
/**
 * Longer values are counted with the others: the tallies stay small whatever the logs hold (10,000 logs x 8 keys
 * x this), and a value that long would not fit an `attr` term anyway.
 */
export const MAX_FACET_VALUE = 256;

export interface Facet {
  key: string;
  values: Array<{ value: string; count: number }>;
  others: number;
  missing: number;
}

export interface FacetsReport {
  sampled: number;
  complete: boolean;
  facets: Facet[];
}


/** A list of OpenTelemetry `{ key, value }` attributes: the value of `key` (its first), else undefined. */
function fromList(list: unknown, key: string): { found: boolean; value: unknown } {
  if (!Array.isArray(list)) return { found: false, value: undefined };
  for (const kv of list) {
    if (kv !== null && typeof kv === 'object' && (kv as { key?: unknown }).key === key) return { found: true, value: (kv as { value?: unknown }).value };
  }
  return { found: false, value: undefined };
}

/** The value a log has for `key` (found: false when it has none): its own field first, then its lists. */
export function valueOf(log: Record<string, unknown>, key: string): { found: boolean; value: unknown } {
  if (LOG_NOT_ATTRIBUTES.has(key)) return { found: false, value: undefined };
  if (key === 'service.name' && typeof log['serviceName'] === 'string') return { found: true, value: log['serviceName'] };
  if (Object.hasOwn(log, key) && !['attributes', 'resource', 'scope'].includes(key)) return { found: true, value: log[key] };
  for (const list of [log['attributes'], log['resource'], (log['scope'] as { attributes?: unknown } | undefined)?.attributes]) {
    const hit = fromList(list, key);
    if (hit.found) return hit;
  }
  return { found: false, value: undefined };
}

/**
 * Tallies the keys over the logs, newest first as the store gives them: FACET_SAMPLE at most, the store asked for
 * one more, so that a sample that holds every matching log says so (`complete`).
 */
export async function facetsOf(logs: AsyncIterable<LogEntry>, keys: readonly string[]): Promise<FacetsReport> {
  const tallies = keys.map(() => ({ counts: new Map<string, number>(), others: 0, missing: 0 }));
  let sampled = 0;
  let complete = true;
  for await (const log of logs) {
    if (sampled === FACET_SAMPLE) {
      complete = false;
      break;
    }
    sampled += 1;
    keys.forEach((key, i) => {
      const tally = tallies[i]!;
      const { found, value } = valueOf(log as unknown as Record<string, unknown>, key);
      if (!found) return void (tally.missing += 1);
      const text = valueText(value);
      if (text === undefined || text.length > MAX_FACET_VALUE) return void (tally.others += 1);
      tally.counts.set(text, (tally.counts.get(text) ?? 0) + 1);
    });
  }
  const facets = keys.map((key, i) => {
    const { counts, others, missing } = tallies[i]!;
    const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const values = sorted.slice(0, TOP_VALUES).map(([value, count]) => ({ value, count }));
    return { key, values, others: others + sorted.slice(TOP_VALUES).reduce((n, [, c]) => n + c, 0), missing };
  });
  return { sampled, complete, facets };
}
