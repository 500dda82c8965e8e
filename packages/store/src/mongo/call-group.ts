import type { Collections, SpanDoc } from './collections.js';
import { spanKey } from './collections.js';
import { completeFoundCalls, decideCallers } from './call-ops.js';
import type { FoundCaller } from './call-ops.js';

/*
 * The service map's part of a group of span batches (call-ops.ts says how a call is counted once): who called the
 * group's waiting spans, and the open spans of other batches under the group's spans. In round trips: the
 * applications of the group's projects (beside the read after the insert, span-group.ts), the other applications'
 * parents of the group's waiting spans (by _id, one read), the callers decided (one bulk), their delta and flip.
 */

/** The applications of these projects (read after the group's insert), by project. */
export type ProjectApplications = Map<number, number[]>;

/** A span's id within its project and trace, whatever its application: what a child's `parentSpanId` names. */
const parentId = (projectId: number, traceId: string, spanId: string): string => JSON.stringify([projectId, traceId, spanId]);

/**
 * Sets a new span's call fields before its insert: a controller span whose parent is of its own application in the
 * group is no call (0); one whose parent is elsewhere waits (-1, open) until a writer finds its parent.
 */
export function markWaiting(d: SpanDoc, inGroup: Set<string>): void {
  if (!d.controller || d.parentSpanId === null) return;
  if (inGroup.has(spanKey(d.applicationId, d.traceId, d.parentSpanId))) d.callerApp = 0;
  else Object.assign(d, { callerApp: -1, callOp: '' });
}

/**
 * Whether the group needs the applications of its projects: a span of it waits for a parent id that no span of the
 * group has, so its parent may be stored in another application. (A parent id the group has is of another
 * application than the waiting span's: the group decides that call itself.)
 */
export function parentsElsewhere(docs: SpanDoc[]): boolean {
  const ids = new Set(docs.map((d) => parentId(d.projectId, d.traceId, d.spanId)));
  return docs.some((d) => d.callOp === '' && !ids.has(parentId(d.projectId, d.traceId, d.parentSpanId!)));
}

/** The applications of the projects, for the lookup of parents in another application (one covered read). */
export async function applicationsOf(c: Collections, projectIds: number[]): Promise<ProjectApplications> {
  const out: ProjectApplications = new Map();
  const apps = await c.applications.find({ projectId: { $in: projectIds } }, { projection: { _id: 1, projectId: 1 } }).toArray();
  for (const a of apps) out.set(a.projectId, [...(out.get(a.projectId) ?? []), a._id]);
  return out;
}

/** The query of the open spans whose parent may be one of these spans (any application of their projects), on `call_open`. */
export function openUnder(docs: SpanDoc[]): object {
  const distinct = <T>(values: T[]): T[] => [...new Set(values)];
  return {
    callOp: { $gte: '' },
    projectId: { $in: distinct(docs.map((d) => d.projectId)) },
    traceId: { $in: distinct(docs.map((d) => d.traceId)) },
    parentSpanId: { $in: distinct(docs.map((d) => d.spanId)) },
  };
}

/** The group of spans written together, as the calls need it (see span-group.ts). */
export interface CallsInput {
  /** The group's spans as stored (the first version of each), whoever stored them. */
  stored: SpanDoc[];
  /** Spans found after the insert, among them the open ones under the group's spans (`openUnder`). */
  found: SpanDoc[];
  /** `spanKey` of every span of the group. */
  inGroup: Set<string>;
  /** `spanKey` of the own-application parents of the group's controller spans, outside the group, that are stored. */
  parentsStored: Set<string>;
  /** The applications of the group's projects, read after the insert (none when no waiting span needs them: `parentsElsewhere`). */
  applications: ProjectApplications;
}

/** The smallest application of `apps` other than `own` (a parent id found in several: one caller, the same every time). */
const otherThan = (apps: Iterable<number>, own: number): number | undefined => {
  let best: number | undefined;
  for (const a of apps) if (a !== own && (best === undefined || a < best)) best = a;
  return best;
};

/**
 * The callers of waiting spans of the group whose parent is in none of the group's applications: their parent
 * looked up in the other applications of their project, by _id (one read, covered by the _id index).
 */
async function callersStored(c: Collections, waiting: SpanDoc[], applications: ProjectApplications): Promise<FoundCaller[]> {
  const byKey = new Map<string, { app: number; spans: SpanDoc[] }>();
  for (const s of waiting) {
    for (const app of applications.get(s.projectId) ?? []) {
      if (app === s.applicationId) continue;
      const key = spanKey(app, s.traceId, s.parentSpanId!);
      const entry = byKey.get(key) ?? { app, spans: [] };
      entry.spans.push(s);
      byKey.set(key, entry);
    }
  }
  if (byKey.size === 0) return [];
  const parents = await c.spans.find({ _id: { $in: [...byKey.keys()] } }, { projection: { _id: 1 } }).toArray();
  const callers = new Map<SpanDoc, number[]>();
  for (const p of parents) {
    const { app, spans } = byKey.get(p._id)!;
    for (const s of spans) callers.set(s, [...(callers.get(s) ?? []), app]);
  }
  return [...callers].map(([span, apps]) => ({ span, callerApp: otherThan(apps, span.applicationId)! }));
}

/**
 * The calls' part of a group: completes the call operations found under way (a retry's own, or another writer's),
 * and decides the callers of the waiting spans it can: a parent of their own application in the group or stored
 * (no call), of another application in the group, or (the group's own waiting spans) stored in another
 * application of the project.
 */
export async function updateCalls(c: Collections, g: CallsInput): Promise<void> {
  const groupApps = new Map<string, number[]>();
  for (const s of g.stored) {
    const key = parentId(s.projectId, s.traceId, s.spanId);
    groupApps.set(key, [...(groupApps.get(key) ?? []), s.applicationId]);
  }
  // The group's open spans, and those found under its spans (not the other spans found, parents and the like).
  const under = (s: SpanDoc): boolean => s.parentSpanId !== null && groupApps.has(parentId(s.projectId, s.traceId, s.parentSpanId));
  const open = new Map<string, SpanDoc>();
  for (const s of [...g.stored, ...g.found.filter(under)]) if (typeof s.callOp === 'string') open.set(s._id, s);
  if (open.size === 0) return;
  const ownIds = new Set(g.stored.map((s) => s._id));
  const found: FoundCaller[] = [];
  const lookFor: SpanDoc[] = [];
  for (const s of open.values()) {
    // Only a waiting span is decided here; one under way is completed below.
    if (s.callerApp !== -1 || s.callOp !== '' || s.parentSpanId === null) continue;
    const own = spanKey(s.applicationId, s.traceId, s.parentSpanId);
    const inGroup = otherThan(groupApps.get(parentId(s.projectId, s.traceId, s.parentSpanId)) ?? [], s.applicationId);
    if (g.inGroup.has(own) || g.parentsStored.has(own)) found.push({ span: s, callerApp: 0 });
    else if (inGroup !== undefined) found.push({ span: s, callerApp: inGroup });
    else if (ownIds.has(s._id)) lookFor.push(s);
  }
  await completeFoundCalls(c, [...open.values()]);
  await decideCallers(c, [...found, ...(await callersStored(c, lookFor, g.applications))]);
}
