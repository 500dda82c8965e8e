export { createIngestApp, createIngestRouter, type IngestDeps } from './app.js';
