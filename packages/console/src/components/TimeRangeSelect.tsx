// The time range of a page: named ranges relative to now, or an absolute window chosen with two date-time
// fields in the console's time zone (the top bar's zone switch).
//
// data-testid: filter-range (the <select>; "custom" is the absolute window), range-from, range-to (the fields),
// range-apply, range-error
import { useEffect, useState } from 'react';
import { describeRange, RANGES, resolveRange, type RangeName, type TimeRange } from '../lib/time-range';
import { fromInputValue, toInputValue } from '../lib/time-zone';
import { useTimePrefs } from '../time-prefs';

/**
 * The named ranges (`names`, all by default) and "Custom range…": choosing it (or arriving with a fixed window,
 * from a link or a drag on a chart) shows From and To fields, filled with the window in view.
 */
export function TimeRangeSelect({ value, onChange, names }: {
  value: TimeRange;
  onChange(range: TimeRange): void;
  names?: readonly RangeName[];
}) {
  const prefs = useTimePrefs();
  const options = RANGES.filter((r) => !names || names.includes(r.name));
  const [editing, setEditing] = useState(false);
  const custom = value.name === 'custom';
  const valueKey = JSON.stringify(value);
  useEffect(() => setEditing(false), [valueKey]);
  return (
    <>
      <label className="filter">
        <span>Time</span>
        <select
          data-testid="filter-range"
          value={custom || editing ? 'custom' : value.name}
          onChange={(e) => {
            const name = e.target.value;
            if (name === 'custom') return setEditing(true);
            const option = options.find((r) => r.name === name);
            setEditing(false);
            if (option) onChange({ name: option.name });
          }}
        >
          {options.map((r) => <option key={r.name} value={r.name}>{r.label}</option>)}
          <option value="custom">{custom ? describeRange(value, (iso) => prefs.time(iso)) : 'Custom range…'}</option>
        </select>
      </label>
      {custom || editing ? <AbsoluteRange value={value} onChange={onChange} /> : null}
    </>
  );
}

/** From and To as wall times in the chosen zone; Apply (or Enter) sets them as the page's window. */
function AbsoluteRange({ value, onChange }: { value: TimeRange; onChange(range: TimeRange): void }) {
  const prefs = useTimePrefs();
  const shown = () => {
    // A named range shows the window it covers now ("all time": the last hour, to start from).
    const q = resolveRange(value.name === 'all' ? { name: '1h' } : value, Date.now());
    return { from: toInputValue(q.from, prefs.timeZone), to: toInputValue(q.to ?? new Date().toISOString(), prefs.timeZone) };
  };
  const [draft, setDraft] = useState(shown);
  const [error, setError] = useState('');
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => { setDraft(shown()); setError(''); }, [JSON.stringify(value), prefs.timeZone]);
  const apply = () => {
    const from = fromInputValue(draft.from, prefs.timeZone);
    const to = fromInputValue(draft.to, prefs.timeZone);
    if (!from || !to) return setError('Give both a start and an end.');
    if (from >= to) return setError('The start must be before the end.');
    setError('');
    onChange({ name: 'custom', from, to });
  };
  const field = (key: 'from' | 'to', label: string) => (
    <label className="filter">
      <span>{label} <span className="muted">({prefs.short})</span></span>
      <input
        type="datetime-local"
        data-testid={`range-${key}`}
        value={draft[key]}
        onChange={(e) => setDraft((d) => ({ ...d, [key]: e.target.value }))}
        onKeyDown={(e) => { if (e.key === 'Enter') apply(); }}
      />
    </label>
  );
  return (
    <span className="absolute-range">
      {field('from', 'From')}
      {field('to', 'To')}
      <button type="button" data-testid="range-apply" onClick={apply}>Apply</button>
      {error ? <span className="form-error" role="alert" data-testid="range-error">{error}</span> : null}
    </span>
  );
}
