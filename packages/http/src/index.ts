export * from './app.js';
export * from './auth.js';
export * from './body.js';
export * from './errors.js';
export * from './query.js';
export * from './rate-limit.js';
export * from './request-log.js';
export * from './stream.js';
