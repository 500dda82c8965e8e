/**
 * `pnpm test:otel`: the tests that need more than Node, the OpenTelemetry Python SDK in a virtualenv that
 * scripts/otel-python/venv.mjs makes once (its first run installs from PyPI), so the default `pnpm test` stays
 * fast and offline. They are named *.otel.test.ts.
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['**/test/**/*.otel.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 60000,
};
