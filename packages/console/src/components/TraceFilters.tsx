// The traces list's filters. The caller keeps them in the hash (lib/traceList.ts), so a link reproduces the view.
// Selects apply at once; typed filters (durations, URL text, service, operation) apply 400 ms after the last
// keystroke, or on Enter. Service and operation are exact names: the fields suggest the ones of the loaded traces.
// A trace id typed in the id box opens that trace. Attributes are terms (`key=value`, or `key`: present), added on
// Enter and shown as chips, each removable: every one must hold (lib/attribute-terms.ts).
//
// data-testid: filter-range (components/TimeRangeSelect.tsx), filter-application, filter-status, filter-min-duration,
// filter-max-duration, filter-url, filter-service, filter-operation, those of AttributeTerms.tsx, filter-clear,
// trace-id-box, trace-id-error
import { useEffect, useId, useRef, useState } from 'react';
import type { Application } from '../api/types';
import { syncDraft } from '../lib/draft';
import { parseTraceId } from '../lib/trace-id';
import { STATUS_CLASSES, type TraceListParams } from '../lib/trace-list';
import { AttributeTerms } from './AttributeTerms';
import { TimeRangeSelect } from './TimeRangeSelect';

export interface TraceFiltersProps {
  params: TraceListParams;
  applications: Application[];
  onChange(next: TraceListParams): void;
  /** Shown only when some filter is set. */
  onClear?: () => void;
  /** Names to suggest (from the loaded traces' roots). */
  services: readonly string[];
  operations: readonly string[];
  /** A trace id was entered: open it. */
  onOpenTrace(traceId: string): void;
}

/** Exact codes offered beside the classes (any other code works from a link: `status=418`). */
const COMMON_CODES = ['400', '401', '403', '404', '409', '429', '500', '502', '503', '504'];

const TYPING_DELAY_MS = 400;

export function TraceFilters({ params, applications, onChange, onClear, services, operations, onOpenTrace }: TraceFiltersProps) {
  const id = useId();
  const set = (patch: Partial<TraceListParams>) => onChange({ ...params, ...patch });
  return (
    <form className="filters trace-filters" role="search" onSubmit={(e) => e.preventDefault()}>
      <TimeRangeSelect value={params.range} onChange={(range) => set({ range })} />

      <label htmlFor={`${id}-app`}>Application</label>
      <select
        id={`${id}-app`}
        data-testid="filter-application"
        value={params.applicationId ?? ''}
        onChange={(e) => set({ applicationId: e.target.value ? Number(e.target.value) : undefined })}
      >
        <option value="">All applications</option>
        {applications.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
        {params.applicationId !== undefined && !applications.some((a) => a.id === params.applicationId)
          ? <option value={params.applicationId}>Application {params.applicationId}</option>
          : null}
      </select>

      <label htmlFor={`${id}-status`}>Status</label>
      <select id={`${id}-status`} data-testid="filter-status" value={params.status} onChange={(e) => set({ status: e.target.value })}>
        <option value="">Any status</option>
        {STATUS_CLASSES.map((c) => <option key={c} value={c}>{c}</option>)}
        <optgroup label="Exact code">
          {COMMON_CODES.map((c) => <option key={c} value={c}>{c}</option>)}
          {params.status && !(STATUS_CLASSES as readonly string[]).includes(params.status) && !COMMON_CODES.includes(params.status)
            ? <option value={params.status}>{params.status}</option>
            : null}
        </optgroup>
      </select>

      <label htmlFor={`${id}-service`}>Service</label>
      <TypedInput id={`${id}-service`} testid="filter-service" type="search" placeholder="checkout" value={params.service} list={`${id}-services`}
        onCommit={(v) => set({ service: v.trim() })} />
      <datalist id={`${id}-services`}>{services.map((n) => <option key={n} value={n} />)}</datalist>

      <label htmlFor={`${id}-operation`}>Operation</label>
      <TypedInput id={`${id}-operation`} testid="filter-operation" type="search" placeholder="GET /items/:id" value={params.operation} list={`${id}-operations`}
        onCommit={(v) => set({ operation: v.trim() })} />
      <datalist id={`${id}-operations`}>{operations.map((n) => <option key={n} value={n} />)}</datalist>

      <label htmlFor={`${id}-min`}>Min duration (ms)</label>
      <TypedInput
        id={`${id}-min`}
        testid="filter-min-duration"
        type="number"
        placeholder="0"
        value={params.minDurationMs ? String(params.minDurationMs) : ''}
        onCommit={(v) => {
          const n = Number(v);
          set({ minDurationMs: v && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined });
        }}
      />

      <label htmlFor={`${id}-max`}>Max duration (ms)</label>
      <TypedInput
        id={`${id}-max`}
        testid="filter-max-duration"
        type="number"
        placeholder="any"
        value={params.maxDurationMs !== undefined ? String(params.maxDurationMs) : ''}
        onCommit={(v) => {
          const n = Number(v);
          set({ maxDurationMs: v.trim() && Number.isFinite(n) && n >= 0 ? Math.floor(n) : undefined });
        }}
      />

      <label htmlFor={`${id}-url`}>URL contains</label>
      <TypedInput id={`${id}-url`} testid="filter-url" type="search" placeholder="/checkout" value={params.url} onCommit={(v) => set({ url: v.trim() })} />

      <AttributeTerms terms={params.attrs} onChange={(attrs) => set({ attrs })} />

      {onClear ? <button type="button" className="link" data-testid="filter-clear" onClick={onClear}>Clear filters</button> : null}
      <TraceIdBox onOpen={onOpenTrace} />
    </form>
  );
}

interface TypedInputProps {
  id: string;
  testid: string;
  type: 'number' | 'search';
  placeholder: string;
  value: string;
  /** A <datalist> of suggestions. */
  list?: string;
  onCommit(value: string): void;
}

/** A trace id (a UUID, any case, with or without its braces' spaces): Enter opens the trace. */
function TraceIdBox({ onOpen }: { onOpen(traceId: string): void }) {
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const open = () => {
    const id = parseTraceId(text.trim());
    if (!id) return setError(text.trim() ? 'Not a trace id: a trace id is a UUID.' : '');
    setError('');
    onOpen(id);
  };
  return (
    <span className="trace-id-box">
      <label className="sr-only" htmlFor="trace-id-box">Open a trace by its id</label>
      <input id="trace-id-box" data-testid="trace-id-box" type="search" placeholder="Trace id" value={text} aria-invalid={Boolean(error)}
        onChange={(e) => { setText(e.target.value); setError(''); }} onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); open(); } }} />
      {error ? <span className="form-error" role="alert" data-testid="trace-id-error">{error}</span> : null}
    </span>
  );
}

/** An input whose text applies after a pause in typing, on Enter or on leaving it; follows `value` from outside. */
function TypedInput({ id, testid, type, placeholder, value, list, onCommit }: TypedInputProps) {
  const [text, setText] = useState(value);
  const committed = useRef(value);
  const commitRef = useRef(onCommit);
  commitRef.current = onCommit;

  // `value` changed: show it, unless it is the text's own value applied (trimmed), which would drop a space typed
  // before a pause.
  useEffect(() => {
    committed.current = value;
    setText((t) => syncDraft(t, value));
  }, [value]);

  // Compared and kept trimmed, as `value` is: a text that differs only by spaces has nothing new to apply.
  const commit = (v: string) => {
    if (v.trim() === committed.current) return;
    committed.current = v.trim();
    commitRef.current(v);
  };

  useEffect(() => {
    if (text.trim() === committed.current) return;
    const t = setTimeout(() => commit(text), TYPING_DELAY_MS);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text]);

  return (
    <input
      id={id}
      data-testid={testid}
      type={type}
      min={type === 'number' ? 0 : undefined}
      step={type === 'number' ? 1 : undefined}
      placeholder={placeholder}
      list={list}
      value={text}
      onChange={(e) => setText(e.target.value)}
      onBlur={() => commit(text)}
      onKeyDown={(e) => { if (e.key === 'Enter') commit(text); }}
    />
  );
}
