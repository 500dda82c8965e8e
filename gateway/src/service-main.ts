import { createLogger } from '@lantern/logging';
import { serve } from './server.js';
import { createServiceProcess, distributedProblems } from './services.js';
import type { ServiceName } from './routers.js';
import { explainSetupError } from './setup-errors.js';
import { configOrExit, fail } from './startup.js';

/**
 * `lantern <service>`: one service in a process of its own (the distributed mode behind nginx), with /healthz,
 * /readyz checking its dependencies, and the graceful SIGTERM of `serve` (stop accepting, finish in-flight
 * requests, stop consuming and commit, close the clients).
 */
export async function runService(service: ServiceName): Promise<void> {
  const config = configOrExit();
  const problems = distributedProblems(service, config);
  if (problems.length > 0) fail(`Invalid configuration for "lantern ${service}":\n  - ${problems.join('\n  - ')}\nSee docs/deploy.md.`, 2);
  const logger = createLogger({ service, level: config.logLevel });
  let proc;
  try {
    proc = await createServiceProcess(service, config, logger);
  } catch (err) {
    fail(`lantern ${service} failed to start: ${explainSetupError(err, config)}`, 1);
  }
  try {
    const server = await serve(proc.app, { port: config.port, host: config.host, logger, onStopping: proc.beginShutdown, close: proc.close, timeoutMs: config.shutdownTimeoutMs, limits: config.server });
    const address = server.address();
    logger.info('listening', { port: typeof address === 'object' && address ? address.port : config.port, mode: 'distributed', service });
  } catch (err) {
    await proc.close().catch(() => undefined);
    fail(`lantern ${service} failed to start: ${explainSetupError(err, config)}`, 1);
  }
}
