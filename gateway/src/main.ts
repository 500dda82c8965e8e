#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '@lantern/config';
import { consoleDir } from '@lantern/console';
import { createLogger } from '@lantern/logging';
import { createEmbedded } from './compose.js';
import { serve } from './server.js';
import { explainSetupError } from './setup-errors.js';
import { configOrExit, fail } from './startup.js';

/** "embedded mode" with the default adapters, else which ones this all-in-one process uses. */
function modeOf({ adapters: { store, bus, blobs } }: Config): string {
  if (store.kind === 'sqlite' && bus.kind === 'memory' && blobs.kind === 'fs') return 'embedded mode';
  return `all services in one process; store ${store.kind}, bus ${bus.kind}, blobs ${blobs.kind}`;
}

/** `pnpm start`: every service in one process on one port, with the embedded adapters. */
async function main(): Promise<void> {
  const config = configOrExit();
  const logger = createLogger({ service: 'lantern', level: config.logLevel });
  let embedded;
  try {
    embedded = await createEmbedded({ ...config, logger });
  } catch (err) {
    fail(`Lantern failed to start: ${explainSetupError(err, config)}`, 1);
  }
  const empty = !(await embedded.store.hasUsers());
  let server;
  try {
    server = await serve(embedded.app, { port: config.port, host: config.host, logger, onStopping: embedded.beginShutdown, close: embedded.close, timeoutMs: config.shutdownTimeoutMs, limits: config.server });
  } catch (err) {
    await embedded.close().catch(() => undefined);
    fail(`Lantern failed to start: ${explainSetupError(err, config)}`, 1);
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const signUp = existsSync(join(consoleDir, 'index.html')) ? `open http://localhost:${port} in a browser to sign up, or ` : '';
  const lines = [
    `Lantern is running on http://localhost:${port} (${modeOf(config)}, data in ${config.dataDir})`,
    empty
      ? `The store is empty: ${signUp}run \`pnpm lantern init\` in another terminal to create a user, project and API key.`
      : `API reference: http://localhost:${port}/openapi.json`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  logger.info('listening', { port, mode: 'embedded', empty });
}

main().catch((err: unknown) => fail(`Lantern failed to start: ${err instanceof Error ? err.message : String(err)}`, 1));
