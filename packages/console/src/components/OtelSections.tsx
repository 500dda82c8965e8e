// The parts of a span's details that an OpenTelemetry span brings: attribute tables (span, resource, scope, events,
// links), the events with their time from the span's start (an exception's type, message and stack trace
// readable), and the links to other spans.
//
// data-testid: span-attributes, span-resource (the tables; each row span-attribute, data-key; find-traces, a link to
// the traces with that attribute), span-events, span-event (data-name), span-exception, span-links, span-link
import type { ReactNode } from 'react';
import type { KeyValue, OtelEvent, OtelLink } from '../lib/otel-span';
import { isKeyValueList, valueText } from '../lib/otel-span';
import { formatDuration } from '../lib/format';
import { traceHref } from '../router';

/** Nested {key, value} lists are drawn as tables down to this depth, deeper ones as compact JSON. */
const MAX_TABLE_DEPTH = 4;

/** A link to the traces with an attribute (`key=value`, or the key alone for a list), or undefined for none. */
export type FindTraces = (key: string, value: unknown) => string | undefined;

export function KeyValueTable({ pairs, testId, depth = 0, find }: { pairs: KeyValue[]; testId?: string; depth?: number; find?: FindTraces }) {
  return (
    <table className="fields kv" data-testid={testId}>
      <tbody>
        {pairs.map((p, i) => (
          <tr key={`${i}:${p.key}`} data-testid={depth === 0 ? 'span-attribute' : undefined} data-key={p.key}>
            <th scope="row">{p.key}</th>
            <td>
              {isKeyValueList(p.value) && p.value.length && depth < MAX_TABLE_DEPTH
                ? <KeyValueTable pairs={p.value} depth={depth + 1} />
                : <pre className={`field-value${typeof p.value === 'string' ? '' : ' json'}`}>{valueText(p.value)}</pre>}
              <FindLink find={depth === 0 ? find : undefined} name={p.key} value={p.value} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** "Find traces" with this attribute, beside its value. */
export function FindLink({ find, name, value }: { find: FindTraces | undefined; name: string; value: unknown }) {
  const to = find?.(name, value);
  return to ? <a className="find-traces" data-testid="find-traces" href={to} title={`The traces any of whose spans has ${name}${isScalar(value) ? ` = ${String(value)}` : ''}`}>Find traces</a> : null;
}

const isScalar = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A foldable section, open at first: "Attributes (12)". */
export function Section({ title, count, testId, children }: { title: string; count: number; testId: string; children: ReactNode }) {
  return (
    <details className="span-section" data-testid={testId} open>
      <summary>{title} <span className="muted">({count})</span></summary>
      {children}
    </details>
  );
}

function EventItem({ event }: { event: OtelEvent }) {
  const ex = event.exception;
  return (
    <li className={`span-event${ex ? ' is-exception' : ''}`} data-testid="span-event" data-name={event.name}>
      <div className="event-head">
        <span className="event-time" title={event.timestamp}>{event.offsetMs === undefined ? '–' : `+${formatDuration(event.offsetMs)}`}</span>
        <strong>{event.name || '(unnamed)'}</strong>
      </div>
      {ex ? (
        <div className="exception" data-testid="span-exception">
          <p className="error-text">{ex.type ?? 'Exception'}{ex.message ? `: ${ex.message}` : ''}</p>
          {ex.stacktrace ? <pre className="stacktrace">{ex.stacktrace}</pre> : null}
        </div>
      ) : null}
      {event.attributes.length ? <KeyValueTable pairs={event.attributes} /> : null}
    </li>
  );
}

export function EventList({ events }: { events: OtelEvent[] }) {
  return <ol className="span-events">{events.map((e, i) => <EventItem key={i} event={e} />)}</ol>;
}

export function LinkList({ links, projectId }: { links: OtelLink[]; projectId: number | undefined }) {
  return (
    <ol className="span-links">
      {links.map((l, i) => (
        <li key={i} data-testid="span-link">
          <a href={traceHref(l.traceId, projectId, { span: l.spanId })}>
            trace <code>{l.traceId}</code>, span <code>{l.spanId}</code>
          </a>
          {l.attributes.length ? <KeyValueTable pairs={l.attributes} /> : null}
        </li>
      ))}
    </ol>
  );
}
