// Two traces of the project side by side, `#/compare?a=<traceId>&b=<traceId>`: spans aligned by service, operation
// and place (lib/compare.ts), each pair's durations and change, and the spans one trace has and the other lacks.
//
// data-testid: compare-page, compare-a, compare-b (the trace id fields), compare-go, compare-error, compare-summary,
// compare-only-changes, compare-row (data-kind: both | only-a | only-b; data-changed), compare-not-found
import { useEffect, useMemo, useRef, useState } from 'react';
import * as client from '../api/client';
import { ApiError } from '../api/errors';
import { EmptyState, ErrorBanner, Loading } from '../components/Feedback';
import { NoProject } from '../components/NoProject';
import { applicationName } from '../lib/applications';
import { changed, compareTraces, type CompareRow } from '../lib/compare';
import { formatDuration } from '../lib/format';
import { parseTraceId } from '../lib/trace-id';
import { layoutTrace } from '../lib/waterfall';
import { navigateView, traceHref, useRoute } from '../router';
import { useAsync } from '../use-async';
import { useWorkspace } from '../workspace';

export function ComparePage() {
  const ws = useWorkspace();
  const { params } = useRoute();
  const a = parseTraceId(params.get('a') ?? '');
  const b = parseTraceId(params.get('b') ?? '');
  if (!ws.project) return <NoProject what="Traces" />;
  return (
    <section className="compare-page" data-testid="compare-page">
      <h1>Compare traces</h1>
      <ChooseTraces a={params.get('a') ?? ''} b={params.get('b') ?? ''} />
      {a && b ? <Comparison projectId={ws.project.id} a={a} b={b} /> : <p className="muted">Give two trace ids of {ws.project.name} to compare their spans.</p>}
    </section>
  );
}

/** The two ids, editable; Compare pushes them into the URL (a history entry). */
function ChooseTraces({ a, b }: { a: string; b: string }) {
  const [draft, setDraft] = useState({ a, b });
  const [error, setError] = useState('');
  const second = useRef<HTMLInputElement>(null);
  useEffect(() => setDraft({ a, b }), [a, b]);
  // Arriving from a trace ("Compare with…"), the second id is what is missing.
  useEffect(() => { if (a && !b) second.current?.focus(); }, [a, b]);
  const go = () => {
    const ia = parseTraceId(draft.a.trim());
    const ib = parseTraceId(draft.b.trim());
    if (!ia || !ib) return setError('Both must be trace ids (UUIDs).');
    setError('');
    navigateView('/compare', { a: ia, b: ib });
  };
  return (
    <form className="filters compare-form" onSubmit={(e) => { e.preventDefault(); go(); }}>
      <label className="filter">
        <span>Trace A</span>
        <input data-testid="compare-a" type="search" value={draft.a} placeholder="Trace id" onChange={(e) => setDraft((d) => ({ ...d, a: e.target.value }))} />
      </label>
      <label className="filter">
        <span>Trace B</span>
        <input ref={second} data-testid="compare-b" type="search" value={draft.b} placeholder="Trace id" onChange={(e) => setDraft((d) => ({ ...d, b: e.target.value }))} />
      </label>
      <button type="submit" data-testid="compare-go">Compare</button>
      {error ? <span className="form-error" role="alert" data-testid="compare-error">{error}</span> : null}
    </form>
  );
}

function Comparison({ projectId, a, b }: { projectId: number; a: string; b: string }) {
  const ws = useWorkspace();
  const [onlyChanges, setOnlyChanges] = useState(false);
  const traces = useAsync((signal) => Promise.all([client.traceRecords(projectId, a, signal), client.traceRecords(projectId, b, signal)]), [projectId, a, b]);
  const result = useMemo(() => {
    const [ra, rb] = traces.data ?? [];
    if (!ra?.length || !rb?.length) return undefined;
    return compareTraces(layoutTrace(ra), layoutTrace(rb), (id) => applicationName(ws.applications, id));
  }, [traces.data, ws.applications]);
  if (traces.loading && !traces.data) return <Loading what="the two traces" />;
  if (traces.error && !(traces.error instanceof ApiError && traces.error.status === 404)) return <ErrorBanner error={traces.error} onRetry={traces.reload} />;
  const missing = [a, b].filter((_, i) => !traces.data?.[i]?.length);
  if (!result) {
    return (
      <div data-testid="compare-not-found">
        <EmptyState title="Trace not found">
          <p>No trace {missing.map((id) => <code key={id}>{id} </code>)}in this project. Its spans may not have arrived yet.</p>
        </EmptyState>
      </div>
    );
  }
  const rows = onlyChanges ? result.rows.filter((r) => changed(r)) : result.rows;
  const total = result.totalB - result.totalA;
  return (
    <>
      <p className="compare-summary" data-testid="compare-summary">
        <span>A {formatDuration(result.totalA)}</span> · <span>B {formatDuration(result.totalB)}</span>{' '}
        <span className={deltaClass(total, Math.max(result.totalA, result.totalB))}>({signed(total)})</span> · {result.matched} spans in both,{' '}
        {result.onlyA} only in A, {result.onlyB} only in B
      </p>
      <label className="filter-inline">
        <input type="checkbox" data-testid="compare-only-changes" checked={onlyChanges} onChange={(e) => setOnlyChanges(e.target.checked)} />
        Only what changed (more than 1 ms and 10 %, or in one trace only)
      </label>
      <table className="table compare-table" aria-label="Spans of the two traces">
        <thead>
          <tr><th scope="col">Span</th><th scope="col" className="num">A</th><th scope="col" className="num">B</th><th scope="col" className="num">Change</th></tr>
        </thead>
        <tbody>
          {rows.map((row) => <Row key={row.key} row={row} projectId={projectId} a={a} b={b} />)}
        </tbody>
      </table>
    </>
  );
}

const signed = (ms: number) => `${ms > 0 ? '+' : ms < 0 ? '−' : '±'}${formatDuration(Math.abs(ms))}`;
const deltaClass = (d: number, base: number) => (Math.abs(d) <= Math.max(1, 0.1 * base) ? 'muted' : d > 0 ? 'slower' : 'faster');

function Row({ row, projectId, a, b }: { row: CompareRow; projectId: number; a: string; b: string }) {
  const kind = row.a && row.b ? 'both' : row.a ? 'only-a' : 'only-b';
  const cell = (side: CompareRow['a'], traceId: string) => (side
    ? <a href={traceHref(traceId, projectId, { span: side.spanId })} className={side.error ? 'error-text' : undefined}>{formatDuration(side.durationMs)}</a>
    : <span className="muted">–</span>);
  const base = Math.max(row.a?.durationMs ?? 0, row.b?.durationMs ?? 0);
  return (
    <tr className={`compare-row ${kind}${changed(row) ? ' changed' : ''}`} data-testid="compare-row" data-kind={kind} data-changed={changed(row)}>
      <td>
        <span style={{ paddingLeft: Math.min(row.depth, 24) * 14 }}>{row.label}</span> <span className="muted">{row.service}</span>
      </td>
      <td className="num">{cell(row.a, a)}</td>
      <td className="num">{cell(row.b, b)}</td>
      <td className="num">
        {kind === 'only-a' ? <span className="only">missing in B</span>
          : kind === 'only-b' ? <span className="only">added in B</span>
            : <span className={deltaClass(row.deltaMs!, base)}>{signed(row.deltaMs!)}{row.a!.durationMs > 0 ? ` (${Math.round((row.deltaMs! / row.a!.durationMs) * 100)} %)` : ''}</span>}
      </td>
    </tr>
  );
}
