import { QuantileSketch } from '@lantern/domain';
import { widen } from './rollup-widen.js';
import type { EntrySpan, RollupChange } from './rollups.js';

/**
 * Calls between applications (the service map, GET /metrics/services): an entry span of an application whose parent
 * is a span of another application of the project is a call from that one (the caller) to this one (the callee).
 * Counted once per entry span, when both are stored, whichever came first: per (callee, caller, minute) and
 * (callee, caller, hour), the calls, their errors (status >= 500) and the callee's latency sketch, as the metrics
 * rollups count entries (rollups.ts). The number of cells is bounded by the pairs of applications that call each other.
 */
export interface CallChange extends RollupChange {
  /** The calling application. `applicationId` is the called one. */
  callerId: number;
}

/** The call cells of a RollupDelta, by minute. */
export class CallCells {
  private readonly cells = new Map<string, CallChange>();

  add(projectId: number, calleeId: number, callerId: number, span: Omit<EntrySpan, 'operation'>, sign: 1 | -1): void {
    const minute = Math.floor(span.ts / 60_000) * 60_000;
    const key = `${calleeId}:${callerId}:${minute}`;
    let cell = this.cells.get(key);
    if (cell === undefined) {
      this.cells.set(key, (cell = { projectId, applicationId: calleeId, callerId, start: minute, requests: 0, errors: 0, sketch: new QuantileSketch() }));
    }
    cell.requests += sign;
    if ((span.status ?? 0) >= 500) cell.errors += sign;
    cell.sketch.add(span.durationMs ?? 0, sign);
  }

  get empty(): boolean {
    return this.cells.size === 0;
  }

  /** The cells of `width` (a minute or an hour) that change, as new objects each call. */
  changes(width: number): CallChange[] {
    return widen(this.cells.values(), width, (c, start) => `${c.applicationId}:${c.callerId}:${start}`);
  }
}
