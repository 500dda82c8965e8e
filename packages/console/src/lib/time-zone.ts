/**
 * The console's one time-zone choice: the browser's own zone ("local") or UTC. Every time the console shows is in
 * the chosen zone, and the top bar labels which one it is; the API speaks UTC (ISO 8601, `Z`) whatever the choice.
 * Pure functions: unit-tested in packages/console/test/time-zone.test.ts.
 */
import { partsIn } from './format';

export type ZoneChoice = 'local' | 'utc';

export function isZoneChoice(value: unknown): value is ZoneChoice {
  return value === 'local' || value === 'utc';
}

/** The IANA zone of a choice for Intl: 'UTC', or undefined for the browser's own zone. */
export function zoneOf(choice: ZoneChoice): string | undefined {
  return choice === 'utc' ? 'UTC' : undefined;
}

/** Minutes east of UTC of `timeZone` (the browser's when undefined) at the instant `ms`: +60 for Paris in winter. */
export function offsetMinutes(ms: number, timeZone: string | undefined): number {
  const p = partsIn(ms, timeZone);
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
}

/** "+01:00", "-04:30", "+00:00". */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The label of a choice: "UTC", or "Local (UTC+01:00)" with the local offset at `now`. */
export function zoneLabel(choice: ZoneChoice, now: number, localZone?: string): string {
  return choice === 'utc' ? 'UTC' : `Local (UTC${formatOffset(offsetMinutes(now, localZone))})`;
}

/** The short label of a choice beside a time: "UTC", or the local offset "UTC+01:00". */
export function zoneShort(choice: ZoneChoice, now: number, localZone?: string): string {
  return choice === 'utc' ? 'UTC' : `UTC${formatOffset(offsetMinutes(now, localZone))}`;
}

/** An instant as the value of an `<input type="datetime-local">` in a zone: "2026-11-22T10:43". */
export function toInputValue(iso: string | undefined, timeZone: string | undefined): string {
  const ms = iso ? Date.parse(iso) : NaN;
  if (!Number.isFinite(ms)) return '';
  const p = partsIn(ms, timeZone);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

/**
 * The instant of a `datetime-local` value ("2026-11-22T10:43", seconds optional) read as a wall-clock time in a
 * zone, as ISO UTC; undefined when the value is not such a time. A wall time that a daylight-saving change skips
 * reads as the instant one offset later; one it repeats reads as its first instant.
 */
export function fromInputValue(value: string, timeZone: string | undefined): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  if (!Number.isFinite(wall) || new Date(wall).getUTCDate() !== d || new Date(wall).getUTCMonth() !== mo - 1) return undefined;
  // The zone's offset half a day before and after: one of them holds at the instant, both where the wall time repeats.
  const before = wall - offsetMinutes(wall - 43_200_000, timeZone) * 60_000;
  const after = wall - offsetMinutes(wall + 43_200_000, timeZone) * 60_000;
  const holds = (t: number) => t + offsetMinutes(t, timeZone) * 60_000 === wall;
  const ms = holds(before) && holds(after) ? Math.min(before, after) : holds(after) ? after : before;
  return new Date(ms).toISOString();
}
