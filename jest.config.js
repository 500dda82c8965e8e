import { availableParallelism } from 'node:os';

/** One jest run for the whole workspace: tests import the sources of the workspace packages directly. */
const ts = ['ts-jest', { useESM: true, tsconfig: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', verbatimModuleSyntax: false, isolatedModules: true, sourceMap: true } }];
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ts },
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/gateway', '<rootDir>/examples', '<rootDir>/scripts'],
  testMatch: ['**/test/**/*.test.ts'],
  // *.distributed.test.ts need real servers: `pnpm test:distributed` (jest.distributed.config.js) runs them.
  // *.otel.test.ts need the OpenTelemetry Python SDK: `pnpm test:otel` (jest.otel.config.js) runs them.
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '\\.distributed\\.test\\.ts$', '\\.otel\\.test\\.ts$'],
  moduleNameMapper: {
    '^@lantern/sdk-node$': '<rootDir>/packages/sdk-node/src/index.ts',
    '^@lantern/sdk-node/winston$': '<rootDir>/packages/sdk-node/src/winston.ts',
    '^@lantern/(store|bus|blobs)/(contract|mongo|kafka|minio)$': '<rootDir>/packages/$1/src/$2/index.ts',
    '^@lantern/(domain|config|logging|auth|store|bus|blobs|http|otlp|extract)$': '<rootDir>/packages/$1/src/index.ts',
    '^@lantern/(accounts|ingest|writer|query|ai)$': '<rootDir>/services/$1/src/index.ts',
    '^@lantern/gateway$': '<rootDir>/gateway/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testTimeout: 20000,
  // Jest's default, one worker fewer than the cores, is a single worker on 2 cores: the suite then took 489 s, with
  // much of it spent waiting (servers, timers, child processes); two workers took 272 s on the same machine.
  maxWorkers: Math.max(2, availableParallelism() - 1),
};
