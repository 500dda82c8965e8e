/**
 * `pnpm test:console`: the console in a real browser (Debian's Chromium driven by playwright-core) against the built
 * server started as `pnpm start` starts it. Not part of `pnpm test`, whose testMatch takes only files under a `test`
 * directory, so not packages/console/e2e/.
 */
import base from './jest.config.js';

export default {
  ...base,
  roots: ['<rootDir>/packages/console/e2e'],
  testMatch: ['**/*.e2e.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 60000,
  // One browser and one server at a time: two cores.
  maxWorkers: 1,
};
