import { createServiceApp } from '@lantern/http';
import type { Express } from 'express';
import { createKnowledgeRouter } from './knowledge-routes.js';
import { createAiRouter, type AiDeps } from './routes.js';

export function createAiApp(deps: AiDeps & { checks?: Record<string, () => Promise<void>> }): Express {
  return createServiceApp({
    logger: deps.logger,
    routers: [createAiRouter(deps), createKnowledgeRouter({ store: deps.store, tokens: deps.tokens, ...(deps.announce ? { announce: deps.announce } : {}) })],
    checks: deps.checks ?? { blobs: () => deps.blobs.ping() },
  });
}
