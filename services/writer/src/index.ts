export { createWriter, type Writer, type WriterDeps } from './writer.js';
export { createRetention, type Retention, type RetentionDeps } from './retention.js';
