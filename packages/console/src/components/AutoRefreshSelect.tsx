import { parseRefresh, REFRESH_CHOICES, type RefreshChoice } from '../lib/metrics-view';

/**
 * The Auto-refresh choice of a page whose window may end now (Metrics, Service map): off for a fixed window, which
 * never changes (the select then shows Off, disabled).
 */
export function AutoRefreshSelect({ testId, follows, value, onChange }: {
  testId: string;
  /** The window ends now: there is something to read again. */
  follows: boolean;
  value: RefreshChoice;
  onChange(choice: RefreshChoice): void;
}) {
  return (
    <label className="filter" title={follows ? 'Read again on this interval while the tab is visible' : 'A fixed window does not change: nothing to refresh'}>
      <span>Auto-refresh</span>
      <select data-testid={testId} value={follows ? value.value : 'off'} disabled={!follows} onChange={(e) => onChange(parseRefresh(e.target.value))}>
        {REFRESH_CHOICES.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
      </select>
    </label>
  );
}
