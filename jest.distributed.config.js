/** `pnpm test:distributed`: the suites that need real servers (Kafka, mongod, MinIO, nginx). */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['**/test/**/*.distributed.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 60000,
  // One suite at a time: they share the servers, and two cores are busy enough with them.
  maxWorkers: 1,
  // These suites drive real clients (kafkajs, the MongoDB driver, MinIO, HTTP agents to child processes). One run
  // of five left a handle open after all 305 tests had passed, and jest then waits forever, which would hold CI
  // until its time limit. The handle is not found yet (`--detectOpenHandles` is the next step); meanwhile jest
  // exits once the results are in.
  forceExit: true,
};
