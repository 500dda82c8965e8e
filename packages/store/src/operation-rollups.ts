import { QuantileSketch } from '@lantern/domain';
import { widen } from './rollup-widen.js';
import type { RollupChange } from './rollups.js';

/**
 * Per-operation rollups (GET /metrics/operations): beside the cells per (application, minute) and (application,
 * hour), the same counts per (application, minute, operation) and (application, hour, operation), where the
 * operation is the entry span's operationOf (@lantern/domain span-names.ts), kept on the span when it is written.
 *
 * Their number is bounded: an application's hour keeps at most MAX_OPERATIONS_PER_HOUR names, the first ones it
 * sees; the entry spans of any further name, and those without a name, count under OTHER_OPERATIONS. Whether a
 * name is kept is decided once per (application, hour) and never changes while the hour is kept (the stores only
 * add names), so a span taken out again (a late parent, the purge) leaves the cell it was counted in.
 */
export const MAX_OPERATIONS_PER_HOUR = 200;
/** The cell of the operations past the bound, and of entry spans without a name: `operation: null` in the API. */
export const OTHER_OPERATIONS = '';

/** A rollup change of one operation's cell. */
export interface OperationChange extends RollupChange {
  operation: string;
}

/** The names an (application, hour) of a delta brings, to be kept or sent to OTHER_OPERATIONS by the store. */
export interface OperationHour {
  projectId: number;
  applicationId: number;
  hour: number;
  /** The names (never OTHER_OPERATIONS) of the delta's spans in that hour. */
  names: Set<string>;
}

const HOUR_MS = 3_600_000;
const hourKey = (applicationId: number, hour: number): string => `${applicationId}:${hour}`;

/** Which names each (application, hour) keeps, as the store answered for the delta's OperationHours. */
export type KeptNames = (applicationId: number, hour: number) => ReadonlySet<string>;

/** The per-operation cells of a RollupDelta, by minute, before the bound is applied. */
export class OperationCells {
  private readonly cells = new Map<string, OperationChange>();

  add(projectId: number, applicationId: number, minute: number, operation: string, durationMs: number | null, error: boolean, sign: 1 | -1): void {
    const key = `${applicationId}\u0000${minute}\u0000${operation}`;
    let cell = this.cells.get(key);
    if (cell === undefined) {
      this.cells.set(key, (cell = { projectId, applicationId, start: minute, operation, requests: 0, errors: 0, sketch: new QuantileSketch() }));
    }
    cell.requests += sign;
    if (error) cell.errors += sign;
    cell.sketch.add(durationMs ?? 0, sign);
  }

  get empty(): boolean {
    return this.cells.size === 0;
  }

  /** The (application, hour)s the cells touch, with their names: what the store decides to keep. */
  hours(): OperationHour[] {
    const hours = new Map<string, OperationHour>();
    for (const c of this.cells.values()) {
      // A cell the delta left unchanged (a span added and taken out again in one group) claims no name.
      if (c.requests === 0 && c.sketch.toArray().every((n) => n === 0)) continue;
      const hour = Math.floor(c.start / HOUR_MS) * HOUR_MS;
      const key = hourKey(c.applicationId, hour);
      let h = hours.get(key);
      if (h === undefined) hours.set(key, (h = { projectId: c.projectId, applicationId: c.applicationId, hour, names: new Set() }));
      if (c.operation !== OTHER_OPERATIONS) h.names.add(c.operation);
    }
    return [...hours.values()];
  }

  /**
   * The cells of `width` (a minute or an hour) that change, a name the hour does not keep counted under
   * OTHER_OPERATIONS, as new objects each call (as RollupDelta.changes).
   */
  changes(width: number, kept: KeptNames): OperationChange[] {
    const relabel = (c: OperationChange): OperationChange => {
      const hour = Math.floor(c.start / HOUR_MS) * HOUR_MS;
      return kept(c.applicationId, hour).has(c.operation) ? c : { ...c, operation: OTHER_OPERATIONS };
    };
    return widen(this.cells.values(), width, (c, start) => `${c.applicationId}\u0000${start}\u0000${c.operation}`, relabel);
  }

}

/** KeptNames over a list of decided hours. */
export function keptNamesOf(hours: Iterable<{ applicationId: number; hour: number; kept: ReadonlySet<string> }>): KeptNames {
  const byKey = new Map<string, ReadonlySet<string>>();
  for (const h of hours) byKey.set(hourKey(h.applicationId, h.hour), h.kept);
  const none = new Set<string>();
  return (applicationId, hour) => byKey.get(hourKey(applicationId, hour)) ?? none;
}
