#!/usr/bin/env node
import { ConfigError, loadConfig } from '@lantern/config';
import { createLogger } from '@lantern/logging';
import { createEmbedded } from './compose.js';
import { serve } from './server.js';

/** `pnpm start`: every service in one process on one port, with the embedded adapters. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee .env.example and README.md ("Configuration").\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ service: 'lantern', level: config.logLevel });
  const embedded = await createEmbedded({ ...config, logger });
  const empty = !(await embedded.store.hasUsers());
  const server = await serve(embedded.app, { port: config.port, host: config.host, logger, close: embedded.close, timeoutMs: config.shutdownTimeoutMs });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const lines = [
    `Lantern is running on http://localhost:${port} (embedded mode, data in ${config.dataDir})`,
    empty
      ? 'The store is empty: run `pnpm lantern init` in another terminal to create a user, project and API key.'
      : 'API reference: http://localhost:' + port + '/openapi.json',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  logger.info('listening', { port, mode: 'embedded', empty });
}

main().catch((err: unknown) => {
  process.stderr.write(`Lantern failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
