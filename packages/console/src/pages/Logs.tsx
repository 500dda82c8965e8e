import { useCallback, useMemo, useState } from 'react';
import type { Project } from '../api/types';
import { EmptyState, ErrorBanner, Loading } from '../components/Feedback';
import { LogFilters, type LogFilterValues } from '../components/LogFilters';
import { LogRow } from '../components/LogRow';
import { ExportButton } from '../components/ExportButton';
import { LogHistogram } from '../components/LogHistogram';
import { DEFAULT_FACETS, LogFacets } from '../components/LogFacets';
import * as client from '../api/client';
import { useAsync } from '../use-async';
import { formatCount } from '../lib/format';
import { listStep } from '../lib/list-keys';
import { levelsParam, parseLevels } from '../lib/log-list';
import { clampWindow, describeRange, parseRange, rangeParams, resolveRange } from '../lib/time-range';
import { MAX_ROWS, useLogFeed } from '../log-feed';
import { viewApplicationId } from '../lib/view-scope';
import { hrefInScope, navigateView, parseHash, useRoute, type ViewParams } from '../router';
import { attributeTerms } from '../lib/attribute-terms';
import { useTimePrefs } from '../time-prefs';
import { useWorkspace } from '../workspace';
import { NoProject } from '../components/NoProject';

/** GET /logs/volume takes a window of at most 90 days. */
const VOLUME_MAX_MS = 90 * 86_400_000;

/** From this many rows the list lets the browser skip rendering the rows out of view (styles.css, `.large`). */
const LARGE_LIST = 1_000;

/** The logs of the selected project (and application), newest first; filters live in the hash params. */
export function LogsPage() {
  const ws = useWorkspace();
  const { params } = useRoute();
  if (!ws.project) return <NoProject what="Logs" />;
  return <ProjectLogs project={ws.project} applicationId={viewApplicationId(params, ws.application?.id)} />;
}

function readFilters(params: URLSearchParams): LogFilterValues {
  const level = params.get('level');
  return {
    levels: parseLevels(level),
    q: params.get('q')?.trim() || undefined,
    attrs: attributeTerms(params.getAll('attr')),
    traceId: params.get('traceId') || undefined,
    range: parseRange(params),
  };
}

/**
 * Writes a filter change into the hash params, over the hash as it is now (a debounced search may come late): a
 * history entry, one per burst of typing in the search box.
 */
function writeFilters(patch: Partial<LogFilterValues> & { applicationId?: number | 'all' }): void {
  const current = parseHash(location.hash);
  const merged = { ...readFilters(current.params), ...patch };
  const params: ViewParams = Object.fromEntries(current.params);
  // Repeated params kept whole (fromEntries keeps the last of each): the counted fields.
  params.facet = current.params.getAll('facet');
  Object.assign(params, { level: levelsParam(merged.levels), q: merged.q, attr: merged.attrs, traceId: merged.traceId }, rangeParams(merged.range));
  if (patch.applicationId !== undefined) params.applicationId = String(patch.applicationId);
  const typed = Object.keys(patch).length === 1 && 'q' in patch;
  navigateView('/logs', params, typed ? 'typing' : 'push');
}

function ProjectLogs({ project, applicationId }: { project: Project; applicationId: number | undefined }) {
  const ws = useWorkspace();
  const { time } = useTimePrefs();
  const { params } = useRoute();
  const filters = readFilters(params);
  const [live, setLive] = useState(false);
  const [refreshed, setRefreshed] = useState(0);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  // The list is one tab stop: j/k and the arrows move between rows (lib/list-keys.ts), Enter or Space opens one.
  // By id, not position: the live tail adds rows above, and only the two rows whose state changes re-render.
  const [currentId, setCurrentId] = useState<string>();

  const filter = { projectId: project.id, applicationId, level: levelsParam(filters.levels), q: filters.q, attr: filters.attrs, traceId: filters.traceId };
  const key = JSON.stringify([filter, filters.range, refreshed]);
  // A named range ends at the moment the filters (or Refresh) last changed.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const bounds = useMemo(() => resolveRange(filters.range, Date.now()), [key]);
  const liveDisabled = filters.range.name === 'custom' && filters.range.to !== undefined;
  const feed = useLogFeed(key, filter, bounds, live && !liveDisabled);
  // Every log of the window per bucket and level, and the level and application counts: the server's (GET
  // /logs/volume, at most 90 days: all time counts the last 90), whatever the list has loaded.
  const volumeWindow = useMemo(() => clampWindow(bounds, VOLUME_MAX_MS, Date.now()), [bounds]);
  const volume = useAsync((signal) => client.logVolume({ projectId: project.id, applicationId, level: levelsParam(filters.levels), ...volumeWindow }, signal),
    [project.id, applicationId, levelsParam(filters.levels), volumeWindow.from, volumeWindow.to, refreshed]);
  // The facets: counts per level and application of the window, without narrowing by level or application.
  const facets = useAsync((signal) => client.logVolume({ projectId: project.id, ...volumeWindow }, signal), [project.id, volumeWindow.from, volumeWindow.to, refreshed]);
  // The top values of the service and the fields the reader counts (`facet=` in the URL), over the list's filters.
  const chosenFacets = useMemo(() => [...new Set(params.getAll('facet').map((k) => k.trim()).filter((k) => k && k.length <= 200 && !DEFAULT_FACETS.includes(k)))].slice(0, 7), [params]);
  // Asked once the list's first page is in: a user has 4 reads in flight at most (429 past that), and the list and
  // the two volume reads come first; until then the values shown are the last ones read.
  const listReady = !feed.loading;
  const topValues = useAsync((signal) => (listReady
    ? client.logFacets({ ...filter, ...bounds, key: [...DEFAULT_FACETS, ...chosenFacets] }, signal)
    : new Promise<never>(() => undefined)), [key, chosenFacets.join('\u0000'), listReady]);
  const chooseFacets = (keys: string[]) => navigateView('/logs', { ...Object.fromEntries(params), attr: filters.attrs, facet: keys }, 'push');

  const appNames = useMemo(() => new Map(ws.applications.map((a) => [a.id, a.name])), [ws.applications]);
  const onToggle = useCallback((id: string) => setExpanded((s) => {
    const n = new Set(s);
    if (!n.delete(id)) n.add(id);
    return n;
  }), []);
  const refresh = () => setRefreshed((r) => r + 1);
  // "Find logs" with a field of an opened log: that attribute added to the filters (the window and the rest kept).
  const onFind = useCallback((term: string) => {
    const current = readFilters(parseHash(location.hash).params);
    if (!current.attrs.includes(term)) writeFilters({ attrs: [...current.attrs, term] });
  }, []);
  // The tab stop: the row last moved to, while it is shown; else the first row.
  const currentShown = useMemo(() => currentId !== undefined && feed.rows.some((l) => l.id === currentId), [currentId, feed.rows]);
  const filtered = Boolean(filters.levels.length || filters.q || filters.attrs.length || filters.traceId || applicationId);

  return (
    <section className="logs-page">
      <header className="page-head">
        <h1>Logs</h1>
        <span className="muted">
          {project.name}{applicationId !== undefined ? ` / ${ws.applications.find((a) => a.id === applicationId)?.name ?? `application ${applicationId}`}` : ''} · {describeRange(filters.range, (iso) => time(iso))}
        </span>
        <ExportButton path="/ingest/logs" query={{ ...filter, ...bounds }} what="log" />
        {!live ? <button type="button" onClick={refresh} disabled={feed.loading}>Refresh</button> : null}
      </header>
      <LogFilters
        values={filters}
        onChange={writeFilters}
        live={live && !liveDisabled}
        onLive={setLive}
        liveDisabled={liveDisabled}
        applications={ws.applications}
        applicationId={applicationId}
        counts={facets.data ? {
          levels: Object.fromEntries(facets.data.levels.map((l) => [l.level, l.count])),
          applications: Object.fromEntries(facets.data.applications.map((a) => [a.applicationId, a.count])),
        } : undefined}
        onApplication={(id) => writeFilters({ applicationId: id ?? 'all' })}
      />
      {volume.data && volume.data.total > 0 ? (
        <LogHistogram
          volume={volume.data}
          narrowed={Boolean(filters.q || filters.traceId || filters.attrs.length)}
          onZoom={(from, to) => writeFilters({ range: { name: 'custom', from: new Date(from).toISOString(), to: new Date(to).toISOString() } })}
        />
      ) : null}
      {topValues.data ? (
        <LogFacets data={topValues.data} chosen={chosenFacets} onChoose={chooseFacets}
          onPick={(term) => { if (!filters.attrs.includes(term)) writeFilters({ attrs: [...filters.attrs, term] }); }} />
      ) : null}
      <ErrorBanner error={feed.error} onRetry={refresh} />
      {feed.loading && feed.rows.length === 0 ? <Loading what="logs" /> : null}
      {!feed.loading && !feed.error && feed.rows.length === 0 ? (
        <div data-testid="logs-empty">
          <EmptyState title={filtered ? 'No logs match these filters' : filters.range.name === 'all' ? 'No logs yet' : 'No logs in this window'}>
            {filtered ? (
              <p>Try another level, message text or time range{applicationId ? ', or all applications of the project' : ''}.</p>
            ) : (
              <p>
                {filters.range.name === 'all' ? 'Nothing has been logged yet.' : `Nothing was logged in ${describeRange(filters.range, (iso) => time(iso))}.`}{' '}
                {filters.range.name !== 'all'
                  ? <><button type="button" className="link" data-testid="logs-all-time" onClick={() => writeFilters({ range: { name: 'all' } })}>Show all time</button>, or </>
                  : null}
                <a href={hrefInScope('/applications', params)}>{filters.range.name !== 'all' ? 'set' : 'Set'} up the SDK</a> in an application to send its logs.
              </p>
            )}
            {live ? <p className="muted">Live tail is on: new logs appear here as they arrive.</p> : null}
          </EmptyState>
        </div>
      ) : null}
      {feed.rows.length > 0 ? (
        <>
          <p className="logs-status muted" aria-live="polite">
            {formatCount(feed.rows.length)} {feed.rows.length === 1 ? 'log' : 'logs'}, newest first
            {live && feed.tailedAt ? ` · live, checked ${time(new Date(feed.tailedAt).toISOString())}` : ''}
          </p>
          <ol
            className={`log-list${feed.rows.length >= LARGE_LIST ? ' large' : ''}${feed.loading ? ' stale' : ''}`}
            aria-label="Logs"
            onKeyDown={(e) => {
              const at = Math.max(0, feed.rows.findIndex((l) => l.id === currentId));
              const next = listStep(feed.rows.length, at, e.key);
              if (next === undefined) return;
              e.preventDefault();
              setCurrentId(feed.rows[next]!.id);
              e.currentTarget.querySelectorAll<HTMLElement>('.log-message')[next]?.focus();
            }}
            onFocus={(e) => {
              const id = (e.target as HTMLElement).closest('[data-log-id]')?.getAttribute('data-log-id');
              if (id) setCurrentId(id);
            }}
          >
            {feed.rows.map((log, i) => (
              <LogRow key={log.id} log={log} current={currentShown ? log.id === currentId : i === 0}
                appName={appNames.get(log.applicationId) ?? `#${log.applicationId}`} expanded={expanded.has(log.id)} onToggle={onToggle} onFind={onFind} />
            ))}
          </ol>
          <div className="logs-more">
            {feed.hasMore && !feed.full ? (
              <button type="button" data-testid="logs-more" onClick={feed.loadMore} disabled={feed.loadingMore}>
                {feed.loadingMore ? 'Loading…' : 'Load more'}
              </button>
            ) : null}
            {feed.full ? <p className="muted">Showing the newest {formatCount(MAX_ROWS)} logs. Narrow the filters or the time range to see older ones.</p> : null}
            {!feed.hasMore && !feed.full ? <p className="muted">No older logs in this range.</p> : null}
          </div>
        </>
      ) : null}
    </section>
  );
}
