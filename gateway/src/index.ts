export { createEmbedded, type Embedded, type EmbeddedOptions } from './compose.js';
export { describeInit, initAccount, type InitResult } from './init.js';
export { loadOrCreateSecret } from './secret.js';
export { checkingIntervalMs, createHttpServer } from './http-server.js';
