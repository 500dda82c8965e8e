// The Metrics page's table of operations (GET /metrics/operations): per application and operation, the rate, the
// errors, p50/p95/p99 and a sparkline of requests per bucket with the errors in red.
//
// A row opens the Traces page on its operation's traces of the window (the operation cell is the link; a click
// anywhere else on the row does the same); a click on a bucket of the sparkline opens that bucket's traces (its
// failed ones when it had errors: lib/operations.ts bucketTraces). The headings sort the rows (`sort=` in the URL,
// aria-sort on the heading). The rows are one tab stop: j/k and the arrows move between them (lib/list-keys.ts),
// Enter opens one; Left and Right move a cursor over the row's buckets (lib/operations.ts bucketStep) and Enter then
// opens that bucket's traces; Escape leaves the buckets.
//
// data-testid: operations-table (the scroll container), operation-row (data-application-id, data-operation, absent
// for the other operations, data-requests, data-errors), operation-link, operation-rate, operation-errors,
// operation-p50, operation-p95, operation-p99, operation-spark (the <svg>; data-buckets), spark-bucket (a bucket with
// requests, drawn on the hovered row; data-index, data-errors), operation-cursor (the live line naming the bucket
// under the keyboard's cursor), sort-operation, sort-rate, sort-errors, sort-p50, sort-p95, sort-p99
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { MetricsPoint, OperationMetrics, OperationMetricsReport } from '../api/types';
import { formatBucket, formatCount, formatDuration, formatPercent } from '../lib/format';
import { listStep } from '../lib/list-keys';
import {
  bucketStep, bucketTraces, errorShare, formatRate, nextOperationSort, operationKey, operationTraces, sortOperations, sparkPaths,
  type OperationColumn, type OperationSort, type TraceViewParams,
} from '../lib/operations';
import { hrefInScope, navigateView } from '../router';
import { useTimePrefs } from '../time-prefs';

/** The sparkline's box: one unit a bucket wide, this high. */
const SPARK_H = 24;

export const OTHER_OPERATIONS_LABEL = 'Other operations';

const HEADINGS: Array<{ column: OperationColumn; label: string; title: string; className?: string }> = [
  { column: 'operation', label: 'Operation', title: 'The entry span\'s operation: its OpenTelemetry name, else its method and route' },
  { column: 'rate', label: 'Rate /min', title: 'Requests per minute over the part of the window that has passed', className: 'num' },
  { column: 'errors', label: 'Errors', title: 'Failed requests (status 5xx): their share, and their count', className: 'num' },
  { column: 'p50', label: 'p50', title: 'Median duration', className: 'num col-p50' },
  { column: 'p95', label: 'p95', title: '95th percentile of the duration', className: 'num' },
  { column: 'p99', label: 'p99', title: '99th percentile of the duration', className: 'num col-p99' },
];

export function OperationsTable({ report, appName, showApplication, sort, onSort, scope }: {
  report: OperationMetricsReport;
  appName(applicationId: number): string;
  /** Name each row's application (the page shows several). */
  showApplication: boolean;
  sort: OperationSort;
  onSort(sort: OperationSort): void;
  /** The page's URL params: a row's link keeps their organization and project. */
  scope: URLSearchParams;
}) {
  const prefs = useTimePrefs();
  // Bucket starts to the minute, as the charts' axes show them.
  const time = (iso: string) => prefs.time(iso, Date.now(), { minutes: true });
  const rows = useMemo(() => sortOperations(report.operations, sort), [report.operations, sort]);
  // The row that takes the focus when the table is tabbed into and that the keys move: by key, so it stays on its
  // operation when a refresh or a sort moves the rows.
  const [currentKey, setCurrentKey] = useState<string>();
  const found = currentKey === undefined ? -1 : rows.findIndex((op) => operationKey(op) === currentKey);
  const at = Math.max(0, found);
  // The keyboard's cursor over the current row's buckets.
  const [cursor, setCursor] = useState<{ key: string; index: number }>();
  const current = rows[at];
  const cursorIndex = current && cursor?.key === operationKey(current) && current.series[cursor.index] ? cursor.index : undefined;
  const body = useRef<HTMLTableSectionElement>(null);
  const [focusTarget, setFocusTarget] = useState<number>();
  useEffect(() => {
    if (focusTarget === undefined) return;
    body.current?.querySelectorAll<HTMLElement>('[data-testid="operation-link"]')[focusTarget]?.focus();
    setFocusTarget(undefined);
  }, [focusTarget]);

  const openBucket = (op: OperationMetrics, point: MetricsPoint) => navigateView('/traces', bucketTraces(op, point, report.bucketMs));

  const onKeyDown = (e: KeyboardEvent<HTMLTableSectionElement>) => {
    if (!current) return;
    if (e.key === 'Enter' && cursorIndex !== undefined) {
      e.preventDefault();
      openBucket(current, current.series[cursorIndex]!);
      return;
    }
    if (e.key === 'Escape' && cursorIndex !== undefined) {
      e.preventDefault();
      setCursor(undefined);
      return;
    }
    const bucket = bucketStep(current.series, cursorIndex, e.key);
    if (bucket !== undefined) {
      e.preventDefault();
      setCursor({ key: operationKey(current), index: bucket });
      return;
    }
    const next = listStep(rows.length, at, e.key);
    if (next === undefined) return;
    e.preventDefault();
    setCurrentKey(operationKey(rows[next]!));
    setCursor(undefined);
    setFocusTarget(next);
  };

  const per = formatBucket(report.bucketMs);
  const cursorPoint = current && cursorIndex !== undefined ? current.series[cursorIndex] : undefined;
  return (
    <>
      <div className="table-scroll operations-scroll" data-testid="operations-table">
        <table className="table operations-table" aria-label="Operations">
          <thead>
            <tr>
              {HEADINGS.map((h) => {
                const on = sort.column === h.column;
                return (
                  <th key={h.column} scope="col" className={h.className} aria-sort={on ? sort.direction : 'none'}>
                    <button type="button" className="sort-heading" data-testid={`sort-${h.column}`} title={`${h.title}. Sort by it`}
                      onClick={() => onSort(nextOperationSort(h.column, sort))}>
                      {h.label}{on ? (sort.direction === 'descending' ? ' ▾' : ' ▴') : ''}
                    </button>
                  </th>
                );
              })}
              <th scope="col" className="spark-cell">Requests per {per}</th>
            </tr>
          </thead>
          <tbody
            ref={body}
            onKeyDown={onKeyDown}
            onFocus={(e) => {
              const index = Number((e.target as HTMLElement).dataset['rowIndex']);
              const op = rows[index];
              if (Number.isInteger(index) && op && operationKey(op) !== currentKey) {
                setCurrentKey(operationKey(op));
                setCursor(undefined);
              }
            }}
          >
            {rows.map((op, i) => (
              <OperationRow
                key={operationKey(op)}
                op={op}
                index={i}
                current={i === at}
                cursor={i === at ? cursorIndex : undefined}
                traces={operationTraces(op, report)}
                scope={scope}
                appName={showApplication ? appName(op.applicationId) : undefined}
                bucketMs={report.bucketMs}
                onBucket={(point) => openBucket(op, point)}
              />
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted operations-cursor" data-testid="operation-cursor" aria-live="polite">
        {current && cursorPoint ? `${label(current)}, ${bucketText(cursorPoint, report.bucketMs, time)}. Enter opens ${cursorPoint.errors > 0 ? 'its failed traces' : 'its traces'}, Escape leaves the buckets.` : ''}
      </p>
    </>
  );
}

const label = (op: OperationMetrics) => op.operation ?? OTHER_OPERATIONS_LABEL;

/** "10:32 to 10:33: 40 requests, 3 failed, p95 120 ms". */
function bucketText(p: MetricsPoint, bucketMs: number, time: (iso: string) => string): string {
  const end = new Date(Date.parse(p.timestamp) + bucketMs).toISOString();
  const failed = p.errors > 0 ? `, ${formatCount(p.errors)} failed` : '';
  const p95 = p.p95Ms !== null ? `, p95 ${formatDuration(p.p95Ms)}` : '';
  return `${time(p.timestamp)} to ${time(end)}: ${formatCount(p.requests)} request${p.requests === 1 ? '' : 's'}${failed}${p95}`;
}

function OperationRow({ op, index, current, cursor, traces, scope, appName, bucketMs, onBucket }: {
  op: OperationMetrics;
  index: number;
  current: boolean;
  cursor: number | undefined;
  /** The Traces view the row opens. */
  traces: TraceViewParams;
  scope: URLSearchParams;
  appName: string | undefined;
  bucketMs: number;
  onBucket(point: MetricsPoint): void;
}) {
  const share = errorShare(op);
  const other = op.operation === null;
  const title = other
    ? `Other operations of ${appName ?? 'the application'}: past the 200 names an application's hour keeps, or entry spans without a name. Opens all the application's traces of the window`
    : `${op.operation}: open its traces of the window`;
  // A click anywhere on the row opens it, as its link does (the sparkline opens a bucket instead).
  const onClick = (e: MouseEvent<HTMLTableRowElement>) => {
    if ((e.target as Element).closest('a, svg') || window.getSelection()?.toString()) return;
    navigateView('/traces', traces);
  };
  return (
    <tr
      className={`operation-row${current ? ' current' : ''}`}
      data-testid="operation-row"
      data-application-id={op.applicationId}
      data-operation={op.operation ?? undefined}
      data-requests={op.requests}
      data-errors={op.errors}
      onClick={onClick}
    >
      <td className="operation-name">
        <a href={hrefInScope('/traces', scope, traces)} data-testid="operation-link" data-row-index={index} tabIndex={current ? 0 : -1} title={title} className={other ? 'other' : undefined}>
          {label(op)}
        </a>
        {appName !== undefined ? <span className="muted operation-app">{appName}</span> : null}
      </td>
      <td className="num" data-testid="operation-rate" title={`${formatCount(op.requests)} request${op.requests === 1 ? '' : 's'}`}>{formatRate(op.ratePerMinute)}</td>
      <td className="num" data-testid="operation-errors">
        <span className={share >= 0.01 ? 'bad' : undefined}>{formatPercent(share)}</span> <span className="muted operation-error-count">({formatCount(op.errors)})</span>
      </td>
      <td className="num col-p50" data-testid="operation-p50">{formatDuration(op.p50Ms)}</td>
      <td className="num" data-testid="operation-p95">{formatDuration(op.p95Ms)}</td>
      <td className="num col-p99" data-testid="operation-p99">{formatDuration(op.p99Ms)}</td>
      <td className="spark-cell">
        <Sparkline op={op} bucketMs={bucketMs} cursor={cursor} onBucket={onBucket} />
      </td>
    </tr>
  );
}

/**
 * Requests per bucket as bars, errors in red from the bottom; scaled to the row's busiest bucket. The buckets are
 * drawn as shapes of their own (with their tooltip) only on the row under the mouse: a click anywhere picks the
 * bucket under it from its x.
 */
function Sparkline({ op, bucketMs, cursor, onBucket }: { op: OperationMetrics; bucketMs: number; cursor: number | undefined; onBucket(point: MetricsPoint): void }) {
  const prefs = useTimePrefs();
  // Bucket starts to the minute, as the charts' axes show them.
  const time = (iso: string) => prefs.time(iso, Date.now(), { minutes: true });
  const [hot, setHot] = useState(false);
  const { series } = op;
  const n = series.length;
  const paths = useMemo(() => sparkPaths(series, SPARK_H), [series]);
  const peak = series.reduce<MetricsPoint | undefined>((best, p) => (p.requests > (best?.requests ?? 0) ? p : best), undefined);
  const failing = series.filter((p) => p.errors > 0).length;
  const per = formatBucket(bucketMs);
  const summary = `Requests per ${per}${peak ? `, peak ${formatCount(peak.requests)} at ${time(peak.timestamp)}` : ', none'}`
    + `${failing ? `; ${failing} bucket${failing === 1 ? '' : 's'} with errors` : ''}. Click a bucket for its traces`;
  const pick = (e: MouseEvent<SVGSVGElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    const i = Math.floor(((e.clientX - box.left) / box.width) * n);
    const point = series[Math.min(n - 1, Math.max(0, i))];
    if (point && point.requests > 0) onBucket(point);
  };
  if (!n) return null;
  return (
    <svg
      className="sparkline"
      viewBox={`0 0 ${n} ${SPARK_H}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={summary}
      data-testid="operation-spark"
      data-buckets={n}
      onMouseEnter={() => setHot(true)}
      onMouseLeave={() => setHot(false)}
      onClick={pick}
    >
      <line className="spark-base" x1={0} x2={n} y1={SPARK_H - 0.5} y2={SPARK_H - 0.5} />
      <path className="spark-requests" d={paths.requests} />
      <path className="spark-errors" d={paths.errors} />
      {cursor !== undefined ? <rect className="spark-cursor" x={cursor} y={0} width={1} height={SPARK_H} /> : null}
      {hot ? series.map((p, i) => (p.requests > 0 ? (
        <rect key={i} className="spark-bucket" data-testid="spark-bucket" data-index={i} data-errors={p.errors} x={i} y={0} width={1} height={SPARK_H}>
          <title>{`${bucketText(p, bucketMs, time)}. Click: ${p.errors > 0 ? 'its failed traces' : 'its traces'}`}</title>
        </rect>
      ) : null)) : null}
    </svg>
  );
}
