export { createAiApp } from './app.js';
export { createKnowledgeRouter, type KnowledgeDeps } from './knowledge-routes.js';
export { createDocumentWorker, type DocumentWorker } from './processing/document-worker.js';
export { PROCESSING_DEFAULTS, startDocumentProcessing, type DocumentProcessing } from './processing/start.js';
export { processingSetup, type ProcessingSetup } from './processing/setup.js';
export { createSemantic, type Semantic } from './search/semantic.js';
export { createAiRouter, type AiDeps, type AiStore } from './routes.js';
export { DOCUMENT_WORKERS_GROUP, documentAnnouncer, listenForDocuments, type AnnounceDocument, type DocumentEvent } from './processing/events.js';
