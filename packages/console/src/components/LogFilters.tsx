import { useEffect, useRef, useState } from 'react';
import type { Application } from '../api/types';
import { syncDraft } from '../lib/draft';
import { formatCount } from '../lib/format';
import { LOG_LEVELS, type LogLevel } from '../lib/log-list';
import type { TimeRange } from '../lib/time-range';
import { AttributeTerms } from './AttributeTerms';
import { TimeRangeSelect } from './TimeRangeSelect';

/** The server takes 1-200 characters of search text (docs/api.md, GET /ingest/logs `q`). */
const MAX_SEARCH = 200;
const SEARCH_DELAY_MS = 300;

export interface LogFilterValues {
  /** The levels kept; none: every level. */
  levels: LogLevel[];
  q: string | undefined;
  /** Attribute terms (`key=value`, or `key`), all holding (lib/attribute-terms.ts). */
  attrs: string[];
  traceId: string | undefined;
  range: TimeRange;
}

/**
 * The Logs page's filter bar: levels (none checked: all), application, message text (applied after a short
 * pause in typing, or on Enter), attributes (chips: AttributeTerms.tsx), time range, the trace a link narrowed to,
 * and the live-tail switch.
 */
export function LogFilters({ values, onChange, live, onLive, liveDisabled, applications, applicationId, onApplication, counts }: {
  values: LogFilterValues;
  /** The window's counts per level and application (GET /logs/volume), shown beside each choice: the facets. */
  counts?: { levels: Record<string, number>; applications: Record<number, number> } | undefined;
  applications: readonly Application[];
  /** The application in view; undefined: every one. */
  applicationId: number | undefined;
  onApplication(id: number | undefined): void;
  onChange(patch: Partial<LogFilterValues>): void;
  live: boolean;
  onLive(on: boolean): void;
  liveDisabled: boolean;
}) {
  const [draft, setDraft] = useState(values.q ?? '');
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  // The hash changed elsewhere (back button, a link): show its text. Not when it is the draft's own text applied,
  // trimmed: that would drop a space typed before a pause.
  useEffect(() => setDraft((d) => syncDraft(d, values.q ?? '')), [values.q]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const apply = (text: string) => {
    clearTimeout(timer.current);
    const q = text.trim() || undefined;
    if (q !== values.q) onChange({ q });
  };

  return (
    <div className="filters">
      <fieldset className="filter level-filter">
        <legend>Levels</legend>
        <span className="level-chips" data-testid="filter-levels">
          {LOG_LEVELS.map((l) => (
            <label key={l} className={`level-chip level-${l}${values.levels.includes(l) ? ' on' : ''}`}>
              <input
                type="checkbox"
                data-testid={`filter-level-${l}`}
                checked={values.levels.includes(l)}
                onChange={(e) => onChange({ levels: e.target.checked ? [...values.levels, l] : values.levels.filter((x) => x !== l) })}
              />
              {l}
              {counts ? <span className="facet-count" data-testid={`facet-level-${l}`}>{formatCount(counts.levels[l] ?? 0, true)}</span> : null}
            </label>
          ))}
        </span>
      </fieldset>
      <label className="filter">
        <span>Application</span>
        <select data-testid="filter-application" value={applicationId ?? ''} onChange={(e) => onApplication(e.target.value ? Number(e.target.value) : undefined)}>
          <option value="">All applications</option>
          {applications.map((a) => <option key={a.id} value={a.id}>{a.name}{counts ? ` (${formatCount(counts.applications[a.id] ?? 0, true)})` : ''}</option>)}
          {applicationId !== undefined && !applications.some((a) => a.id === applicationId) ? <option value={applicationId}>Application {applicationId}</option> : null}
        </select>
      </label>
      <label className="filter filter-grow">
        <span>Message</span>
        <input
          type="search"
          data-testid="filter-q"
          placeholder="Text in the message"
          maxLength={MAX_SEARCH}
          value={draft}
          onChange={(e) => {
            const text = e.target.value;
            setDraft(text);
            clearTimeout(timer.current);
            timer.current = setTimeout(() => apply(text), SEARCH_DELAY_MS);
          }}
          onKeyDown={(e) => { if (e.key === 'Enter') apply(draft); }}
        />
      </label>
      <AttributeTerms terms={values.attrs} onChange={(attrs) => onChange({ attrs })} />
      <TimeRangeSelect value={values.range} onChange={(range) => onChange({ range })} />
      {values.traceId ? (
        <span className="filter-chip">
          trace <code>{values.traceId.slice(0, 8)}</code>
          <button type="button" className="link" aria-label="Show logs of every trace" onClick={() => onChange({ traceId: undefined })}>×</button>
        </span>
      ) : null}
      <label className="filter filter-live" title={liveDisabled ? 'Live tail follows ranges that end now' : 'Ask for new logs every 2 seconds'}>
        <input type="checkbox" data-testid="logs-live" checked={live} disabled={liveDisabled} onChange={(e) => onLive(e.target.checked)} />
        <span>Live tail</span>
      </label>
    </div>
  );
}
