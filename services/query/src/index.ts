export { createQueryApp, createQueryRouter, type QueryDeps } from './app.js';
export { aggregateMetrics, bucketWidth } from './metrics.js';
