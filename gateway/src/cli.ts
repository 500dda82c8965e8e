#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '@lantern/config';
import { describeInit, initAccount, InitInputError } from './init.js';
import { isServiceName } from './routers.js';
import { explainSetupError } from './setup-errors.js';

const USAGE = `Usage: lantern <command>

Commands:
  start                       run every service in one process (same as pnpm start)
  accounts | ingest | writer | query | ai | ai-worker
                              run one service in a process of its own (distributed mode:
                              MongoDB, Kafka, MinIO and nginx; see docs/deploy.md); ai-worker
                              extracts and indexes the documents the ai service announces
  init [--email E] [--password P] [--organization O] [--project P] [--application A]
                              create a user, organization, project, application and API key,
                              and print them once with curl commands to try
`;

/** A failure already worded for the person at the terminal. */
class CliError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'start') {
    await import('./main.js');
    return;
  }
  if (isServiceName(command)) {
    await (await import('./service-main.js')).runService(command);
    return;
  }
  if (command !== 'init') {
    process.stdout.write(USAGE);
    process.exit(command === undefined || command === 'help' || command === '--help' ? 0 : 2);
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string', default: 'admin@lantern.local' },
      password: { type: 'string' },
      organization: { type: 'string', default: 'My organization' },
      project: { type: 'string', default: 'My project' },
      application: { type: 'string', default: 'my-app' },
    },
  });
  const config = loadConfig();
  const result = await initAccount(config, {
    email: values.email!,
    ...(values.password !== undefined ? { password: values.password } : {}),
    organization: values.organization!,
    project: values.project!,
    application: values.application!,
  }).catch((err: unknown) => {
    if (err instanceof InitInputError) throw err;
    if ((err as { code?: unknown }).code === 'conflict') throw new CliError(`${values.email!.trim().toLowerCase()} already has an account: pass --email with another address.`);
    throw new CliError(explainSetupError(err, config));
  });
  process.stdout.write(describeInit(result, `http://localhost:${config.port}`));
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const code = (err as { code?: unknown }).code;
  if (err instanceof ConfigError || err instanceof InitInputError || err instanceof CliError) process.stderr.write(`${err.message}\n`);
  else if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) process.stderr.write(`lantern: ${(err as Error).message}\n\n${USAGE}`);
  else process.stderr.write(`lantern: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
