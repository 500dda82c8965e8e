export * from './api-keys.js';
export * from './key-resolver.js';
export * from './passwords.js';
export * from './tokens.js';
