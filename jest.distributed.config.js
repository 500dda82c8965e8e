/** `pnpm test:distributed`: the suites that need real servers (Kafka, a MongoDB-wire server, MinIO, nginx). */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['**/test/**/*.distributed.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 60000,
  // One suite at a time: they share the servers, and two cores are busy enough with them.
  maxWorkers: 1,
};
