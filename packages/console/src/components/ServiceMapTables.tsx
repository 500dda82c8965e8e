// The Service map's figures as tables, under the drawing: the calls (caller -> callee, busiest first) and the
// applications. They say what the map says, for a screen reader, the keyboard's Tab and a phone, with the same links:
// a call opens the callee's traces of the map's window (its failed ones from the Errors cell), an application its
// traces or its metrics.
//
// data-testid: map-calls-table (the scroll box), map-call-row (data-caller, data-callee, data-calls, data-errors),
// map-call-link, map-call-calls, map-call-errors (the cell; a link to the failed traces when some failed),
// map-call-p50, map-call-p95, map-call-p99, map-apps-table, map-app-row (data-application-id, data-requests,
// data-errors), map-app-traces, map-app-metrics
import { formatCount, formatDuration, formatPercent } from '../lib/format';
import { applicationTraces, edgeDescription, edgesByCalls, edgeTraces, type MapGraph } from '../lib/service-map';
import { hrefInScope } from '../router';

/** "25% (5)": the share of failures, exact, and their count. */
function Failures({ errors, share, href }: { errors: number; share: number; href?: string }) {
  const text = <><span className={errors > 0 ? 'bad' : undefined}>{formatPercent(share)}</span> <span className="muted">({formatCount(errors)})</span></>;
  return href && errors > 0 ? <a href={href} title="Open the failed (5xx) traces">{text}</a> : text;
}

export function ServiceMapTables({ graph, window, scope }: { graph: MapGraph; window: { from: string; to: string }; scope: URLSearchParams }) {
  const calls = edgesByCalls(graph.edges);
  const apps = [...graph.nodes].sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name, 'en') || a.id - b.id);
  return (
    <div className="map-tables">
      <section className="map-section" aria-labelledby="map-calls-title">
        <header className="map-section-head">
          <h2 id="map-calls-title">Calls</h2>
          <span className="muted">caller → callee, busiest first; a row opens the callee&apos;s traces of the window, its errors the failed ones</span>
        </header>
        <div className="table-scroll map-table-scroll" data-testid="map-calls-table">
          <table className="map-table" aria-labelledby="map-calls-title">
            <thead>
              <tr>
                <th scope="col">Caller → callee</th>
                <th scope="col" className="num">Calls</th>
                <th scope="col" className="num" title="Calls the callee answered with a 5xx: their share, and their count">Errors</th>
                <th scope="col" className="num col-p50">p50</th>
                <th scope="col" className="num col-p95">p95</th>
                <th scope="col" className="num">p99</th>
              </tr>
            </thead>
            <tbody>
              {calls.map((e) => (
                <tr key={e.key} data-testid="map-call-row" data-caller={e.caller} data-callee={e.callee} data-calls={e.calls} data-errors={e.errors}
                  className={e.errors > 0 ? 'failing' : undefined}>
                  <td className="map-call">
                    <a href={hrefInScope('/traces', scope, edgeTraces(e, window))} data-testid="map-call-link" title={edgeDescription(e)}>
                      {e.callerName} → {e.calleeName}
                    </a>
                  </td>
                  <td className="num" data-testid="map-call-calls">{formatCount(e.calls)}</td>
                  <td className="num" data-testid="map-call-errors"><Failures errors={e.errors} share={e.share} href={hrefInScope('/traces', scope, edgeTraces(e, window, true))} /></td>
                  <td className="num col-p50" data-testid="map-call-p50">{formatDuration(e.p50Ms)}</td>
                  <td className="num col-p95" data-testid="map-call-p95">{formatDuration(e.p95Ms)}</td>
                  <td className="num" data-testid="map-call-p99">{formatDuration(e.p99Ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section className="map-section" aria-labelledby="map-apps-title">
        <header className="map-section-head">
          <h2 id="map-apps-title">Applications</h2>
          <span className="muted">their own requests (entry spans) in the window</span>
        </header>
        <div className="table-scroll map-table-scroll" data-testid="map-apps-table">
          <table className="map-table" aria-labelledby="map-apps-title">
            <thead>
              <tr>
                <th scope="col">Application</th>
                <th scope="col" className="num">Requests</th>
                <th scope="col" className="num">Errors</th>
                <th scope="col" className="num col-p99">p99</th>
                <th scope="col"><span className="sr-only">Open</span></th>
              </tr>
            </thead>
            <tbody>
              {apps.map((n) => (
                <tr key={n.id} data-testid="map-app-row" data-application-id={n.id} data-requests={n.requests} data-errors={n.errors}>
                  <td className="map-app">{n.name}</td>
                  <td className="num">{n.requests === 0 ? <span className="muted" title="No entry spans in the window: it only calls others">0</span> : formatCount(n.requests)}</td>
                  <td className="num"><Failures errors={n.errors} share={n.share} href={hrefInScope('/traces', scope, applicationTraces(n.id, window, true))} /></td>
                  <td className="num col-p99">{formatDuration(n.p99Ms)}</td>
                  <td className="map-app-links">
                    <a href={hrefInScope('/traces', scope, applicationTraces(n.id, window))} data-testid="map-app-traces" aria-label={`Traces of ${n.name}`}>Traces</a>
                    {' · '}
                    <a href={hrefInScope('/metrics', scope, applicationTraces(n.id, window))} data-testid="map-app-metrics" aria-label={`Metrics of ${n.name}`}>Metrics</a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
