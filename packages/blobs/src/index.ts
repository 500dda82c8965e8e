export type * from './port.js';
export { assertValidKey, createFsBlobStore } from './fs.js';
