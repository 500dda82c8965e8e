// The traces list's filters. The caller keeps them in the hash (lib/traceList.ts), so a link reproduces the view.
// Selects apply at once; the minimum duration and the URL text apply 400 ms after the last keystroke, or on Enter.
//
// data-testid: filter-range (components/TimeRangeSelect.tsx), filter-application, filter-status, filter-min-duration, filter-url, filter-clear
import { useEffect, useId, useRef, useState } from 'react';
import type { Application } from '../api/types';
import { syncDraft } from '../lib/draft';
import { STATUS_CLASSES, type TraceListParams } from '../lib/trace-list';
import { TimeRangeSelect } from './TimeRangeSelect';

export interface TraceFiltersProps {
  params: TraceListParams;
  applications: Application[];
  onChange(next: TraceListParams): void;
  /** Shown only when some filter is set. */
  onClear?: () => void;
}

const TYPING_DELAY_MS = 400;

export function TraceFilters({ params, applications, onChange, onClear }: TraceFiltersProps) {
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
        {params.status && !(STATUS_CLASSES as readonly string[]).includes(params.status)
          ? <option value={params.status}>{params.status}</option>
          : null}
      </select>

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

      <label htmlFor={`${id}-url`}>URL contains</label>
      <TypedInput id={`${id}-url`} testid="filter-url" type="search" placeholder="/checkout" value={params.url} onCommit={(v) => set({ url: v.trim() })} />

      {onClear ? <button type="button" className="link" data-testid="filter-clear" onClick={onClear}>Clear filters</button> : null}
    </form>
  );
}

interface TypedInputProps {
  id: string;
  testid: string;
  type: 'number' | 'search';
  placeholder: string;
  value: string;
  onCommit(value: string): void;
}

/** An input whose text applies after a pause in typing, on Enter or on leaving it; follows `value` from outside. */
function TypedInput({ id, testid, type, placeholder, value, onCommit }: TypedInputProps) {
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
      value={text}
      onChange={(e) => setText(e.target.value)}
      onBlur={() => commit(text)}
      onKeyDown={(e) => { if (e.key === 'Enter') commit(text); }}
    />
  );
}
