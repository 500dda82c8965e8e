import type { TokenService } from '@lantern/auth';
import { errors, type LogEntry, type TraceRecord } from '@lantern/domain';
import { clientGone, createServiceApp, queryId, queryInt, queryTime, requireUser, streamExport, streamJsonArray, userIdOf } from '@lantern/http';
import type { Logger } from '@lantern/logging';
import type { Store } from '@lantern/store';
import { Router, type Express, type Response } from 'express';
import { concurrentReads } from './concurrent-reads.js';
import { metricsReport } from './metrics.js';
import { DEFAULT_OPERATIONS, MAX_OPERATIONS, operationsReport } from './operation-metrics.js';
import { serviceMapReport } from './service-map.js';
import { everyPage, exportFormat, exportName, logLines, traceLines } from './export.js';
import { logVolumeReport } from './log-volume.js';
import { defined, encodeCursor, facetKeys, logFilters, logLevels, traceFilters } from './params.js';
import { FACET_SAMPLE, facetsOf } from './log-facets.js';
import { metricsWindow, operationsWindow } from './window.js';

export type QueryStore = Pick<Store, 'getProject' | 'streamTraces' | 'streamLogs' | 'readMetrics' | 'readLogVolume'>;

/** The time budgets of reads (docs/api.md, "Read budgets"), in ms: config READ_BUDGET_MS and STREAM_BUDGET_MS. */
export interface ReadBudgets {
  /** A page (`limit`), a metrics window, a search. */
  readBudgetMs: number;
  /** A whole-set stream (the seed's unpaged reads). */
  streamBudgetMs: number;
}

export interface QueryDeps {
  store: QueryStore;
  tokens: TokenService;
  logger: Logger;
  /** Reads one user may have in flight at once (MAX_CONCURRENT_READS_PER_USER, default 4). */
  maxConcurrentReadsPerUser?: number;
  /** Default: the configuration's defaults, 10 s and 120 s. */
  budgets?: ReadBudgets;
}

/** READ_BUDGET_MS's and STREAM_BUDGET_MS's defaults (packages/config), for a router built without a configuration. */
export const DEFAULT_READ_BUDGETS: ReadBudgets = { readBudgetMs: 10_000, streamBudgetMs: 120_000 };

/**
 * A page of at most `limit` items (bounded), with `X-Next-Cursor` and a `Link: rel="next"` when there is more.
 * A client gone away stops the read before the next item (the iterator is returned, the store stops); what the
 * read throws then goes to nobody.
 */
async function sendPage<T>(res: Response, items: AsyncIterable<T>, limit: number, position: (item: T) => { ts: number; id: string }) {
  const page: T[] = [];
  let more = false;
  const it = items[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (clientGone(res)) {
        await it.return?.();
        return;
      }
      const next = await it.next();
      if (next.done) break;
      if (page.length === limit) {
        more = true;
        await it.return?.();
        break;
      }
      page.push(next.value);
    }
  } catch (err) {
    if (clientGone(res)) return;
    throw err;
  }
  if (more) {
    const cursor = encodeCursor(position(page[page.length - 1]!));
    const url = new URL(res.req.originalUrl, 'http://x');
    url.searchParams.set('cursor', cursor);
    res.setHeader('X-Next-Cursor', cursor);
    res.setHeader('Link', `<${url.pathname}${url.search}>; rel="next"`);
  }
  res.json(page);
}

/** The JWT reads: traces of a project, logs, metrics. */
export function createQueryRouter({ store, tokens, maxConcurrentReadsPerUser = 4, budgets = DEFAULT_READ_BUDGETS }: QueryDeps): Router {
  const router = Router();
  const read = concurrentReads(requireUser(tokens), maxConcurrentReadsPerUser);
  // A page is one read of at most MAX_PAGE records: the read budget. The whole set streams for longer.
  const budgetOf = (limit: number | undefined): number => (limit ? budgets.readBudgetMs : budgets.streamBudgetMs);

  router.get('/logs/project', read(async (req, res, signal) => {
    const userId = userIdOf(res);
    const projectId = queryId(req, 'id', true);
    const filters = traceFilters(req);
    if (!(await store.getProject(projectId, userId))) throw errors.notFound('project');
    const format = exportFormat(req);
    const position = (t: TraceRecord) => ({ ts: Date.parse(t.timestamp), id: t.id });
    if (format) {
      const records = everyPage((cursor, limit) => store.streamTraces(defined({ userId, projectId, ...filters, cursor, limit, budgetMs: budgets.readBudgetMs, signal })),
        position, filters.cursor, filters.limit);
      return streamExport(res, format, exportName(`traces-project-${projectId}`, format, Date.now()), traceLines(format, records));
    }
    const traces = store.streamTraces(defined({ userId, projectId, ...filters, limit: filters.limit && filters.limit + 1, budgetMs: budgetOf(filters.limit), signal }));
    if (filters.limit) return sendPage(res, traces, filters.limit, position);
    await streamJsonArray(res, traces);
  }));

  router.get('/ingest/logs', read(async (req, res, signal) => {
    const userId = userIdOf(res);
    const filters = logFilters(req);
    if (filters.projectId !== undefined && !(await store.getProject(filters.projectId, userId))) throw errors.notFound('project');
    const format = exportFormat(req);
    const position = (l: LogEntry) => ({ ts: Date.parse(l.timestamp), id: l.id });
    if (format) {
      const logs = everyPage((cursor, limit) => store.streamLogs(defined({ userId, ...filters, cursor, limit, budgetMs: budgets.readBudgetMs, signal })),
        position, filters.cursor, filters.limit);
      const what = filters.projectId === undefined ? 'logs' : `logs-project-${filters.projectId}`;
      return streamExport(res, format, exportName(what, format, Date.now()), logLines(format, logs));
    }
    const logs = store.streamLogs(defined({ userId, ...filters, limit: filters.limit && filters.limit + 1, budgetMs: budgetOf(filters.limit), signal }));
    if (filters.limit) return sendPage(res, logs, filters.limit, position);
    await streamJsonArray(res, logs);
  }));

  router.get('/logs/volume', read(async (req, res, signal) => {
    const userId = userIdOf(res);
    const projectId = queryId(req, 'projectId', true);
    const window = metricsWindow(queryTime(req, 'from'), queryTime(req, 'to'), Date.now());
    const applicationId = queryId(req, 'applicationId');
    const levels = logLevels(req);
    if (!(await store.getProject(projectId, userId))) throw errors.notFound('project');
    const cells = await store.readLogVolume(defined({ userId, projectId, applicationId, levels, ...window, budgetMs: budgets.readBudgetMs, signal }));
    res.json(logVolumeReport(cells, window));
  }));

  router.get('/logs/facets', read(async (req, res, signal) => {
    const userId = userIdOf(res);
    const projectId = queryId(req, 'projectId', true);
    const keys = facetKeys(req);
    const { cursor: _cursor, limit: _limit, projectId: _project, ...filters } = logFilters(req);
    if (!(await store.getProject(projectId, userId))) throw errors.notFound('project');
    const logs = store.streamLogs(defined({ userId, ...filters, projectId, limit: FACET_SAMPLE + 1, budgetMs: budgets.readBudgetMs, signal }));
    res.json(await facetsOf(logs, keys));
  }));

  router.get('/metrics', read(async (req, res, signal) => {
    const userId = userIdOf(res);
    const window = metricsWindow(queryTime(req, 'from'), queryTime(req, 'to'), Date.now());
    const projectId = queryId(req, 'projectId');
    const applicationId = queryId(req, 'applicationId');
    if (projectId !== undefined && !(await store.getProject(projectId, userId))) throw errors.notFound('project');
    res.json(metricsReport(await store.readMetrics(defined({ userId, projectId, applicationId, ...window, budgetMs: budgets.readBudgetMs, signal })), window));
  }));

  router.get('/metrics/services', read(async (req, res, signal) => {
    const userId = userIdOf(res);
    const projectId = queryId(req, 'projectId', true);
    const window = metricsWindow(queryTime(req, 'from'), queryTime(req, 'to'), Date.now());
    if (!(await store.getProject(projectId, userId))) throw errors.notFound('project');
    // The whole window as one bucket: its whole hours from the hour rollups, its edges by the minute.
    const whole = { userId, projectId, from: window.from, to: window.to, bucketMs: window.to - window.from, budgetMs: budgets.readBudgetMs, signal };
    const [entries, calls] = await Promise.all([store.readMetrics(whole), store.readMetrics({ ...whole, byCaller: true })]);
    res.json(serviceMapReport(entries, calls, window));
  }));

  router.get('/metrics/operations', read(async (req, res, signal) => {
    const userId = userIdOf(res);
    const now = Date.now();
    const window = operationsWindow(queryTime(req, 'from'), queryTime(req, 'to'), now);
    const projectId = queryId(req, 'projectId');
    const applicationId = queryId(req, 'applicationId');
    const limit = queryInt(req, 'limit', 1, MAX_OPERATIONS) ?? DEFAULT_OPERATIONS;
    if (projectId !== undefined && !(await store.getProject(projectId, userId))) throw errors.notFound('project');
    const cells = await store.readMetrics(defined({ userId, projectId, applicationId, ...window, byOperation: true, budgetMs: budgets.readBudgetMs, signal }));
    res.json(operationsReport(cells, window, { limit, now }));
  }));
  return router;
}

export function createQueryApp(deps: QueryDeps & { checks?: Record<string, () => Promise<void>> }): Express {
  return createServiceApp({ logger: deps.logger, routers: [createQueryRouter(deps)], checks: deps.checks ?? {} });
}
