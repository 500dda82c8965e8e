export { createIngestApp, createIngestRouter, ingestErrorRenderers, type IngestDeps } from './app.js';
