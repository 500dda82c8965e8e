import { createServiceApp } from '@lantern/http';
import type { Express } from 'express';
import { createAiRouter, type AiDeps } from './routes.js';

export function createAiApp(deps: AiDeps & { checks?: Record<string, () => Promise<void>> }): Express {
  return createServiceApp({ logger: deps.logger, routers: [createAiRouter(deps)], checks: deps.checks ?? { blobs: () => deps.blobs.ping() } });
}
