export type * from './port.js';
export { createMemoryBus } from './memory.js';
