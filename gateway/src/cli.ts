#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '@lantern/config';
import { describeInit, initAccount } from './init.js';

const USAGE = `Usage: lantern <command>

Commands:
  start                       run every service in one process (same as pnpm start)
  init [--email E] [--password P] [--organization O] [--project P] [--application A]
                              create a user, organization, project, application and API key,
                              and print them once with curl commands to try
`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'start') {
    await import('./main.js');
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
    ...(values.password ? { password: values.password } : {}),
    organization: values.organization!,
    project: values.project!,
    application: values.application!,
  });
  process.stdout.write(describeInit(result, `http://localhost:${config.port}`));
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else if ((err as { code?: string }).code === 'conflict') process.stderr.write('That email already has an account: pass --email with another address.\n');
  else process.stderr.write(`lantern: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
