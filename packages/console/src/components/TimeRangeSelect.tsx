import { formatTimestamp } from '../lib/format';
import { describeRange, RANGES, type RangeName, type TimeRange } from '../lib/time-range';

/**
 * The time range of a page: the named ranges (`names`, all by default), and the page's fixed window (from a link)
 * as one more entry while it is the current range.
 */
export function TimeRangeSelect({ value, onChange, names }: {
  value: TimeRange;
  onChange(range: TimeRange): void;
  names?: readonly RangeName[];
}) {
  const options = RANGES.filter((r) => !names || names.includes(r.name));
  return (
    <label className="filter">
      <span>Time</span>
      <select
        data-testid="filter-range"
        value={value.name}
        onChange={(e) => {
          const name = e.target.value;
          const option = options.find((r) => r.name === name);
          if (option) onChange({ name: option.name });
        }}
      >
        {options.map((r) => <option key={r.name} value={r.name}>{r.label}</option>)}
        {value.name === 'custom' ? <option value="custom">{describeRange(value, (iso) => formatTimestamp(iso))}</option> : null}
      </select>
    </label>
  );
}
