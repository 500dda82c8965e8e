export { createQueryApp, createQueryRouter, DEFAULT_READ_BUDGETS, type QueryDeps, type ReadBudgets } from './app.js';
export { metricsReport } from './metrics.js';
export { operationsReport } from './operation-metrics.js';
export { serviceMapReport } from './service-map.js';
export { BUCKET_LADDER_MINUTES, MAX_BUCKETS, MAX_WINDOW_DAYS, metricsWindow, operationsWindow, type MetricsWindow } from './window.js';
