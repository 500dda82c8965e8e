#!/usr/bin/env node
import { ConfigError, loadConfig, type Config } from '@lantern/config';
import { createLogger } from '@lantern/logging';
import { createEmbedded } from './compose.js';
import { serve } from './server.js';
import { explainSetupError } from './setup-errors.js';

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(`${err.message}\nSee .env.example and README.md ("Configuration").`, 2);
    throw err;
  }
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
    server = await serve(embedded.app, { port: config.port, host: config.host, logger, onStopping: embedded.beginShutdown, close: embedded.close, timeoutMs: config.shutdownTimeoutMs });
  } catch (err) {
    await embedded.close().catch(() => undefined);
    fail(`Lantern failed to start: ${explainSetupError(err, config)}`, 1);
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const lines = [
    `Lantern is running on http://localhost:${port} (embedded mode, data in ${config.dataDir})`,
    empty
      ? 'The store is empty: run `pnpm lantern init` in another terminal to create a user, project and API key.'
      : `API reference: http://localhost:${port}/openapi.json`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  logger.info('listening', { port, mode: 'embedded', empty });
}

main().catch((err: unknown) => fail(`Lantern failed to start: ${err instanceof Error ? err.message : String(err)}`, 1));
