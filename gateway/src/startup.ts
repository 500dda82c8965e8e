import { ConfigError, loadConfig, type Config } from '@lantern/config';

/** Prints `message` on stderr and exits with `code`: start-up failures are worded for the person at the terminal. */
export function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** The configuration, or exit 2 with every problem named. */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(`${err.message}\nSee .env.example and README.md ("Configuration").`, 2);
    throw err;
  }
}
