export * from './api-keys.js';
export * from './constant-time.js';
export * from './key-resolver.js';
export * from './limiter.js';
export * from './passwords.js';
export * from './token-versions.js';
export * from './tokens.js';
