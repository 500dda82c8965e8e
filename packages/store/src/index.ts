export type * from './port.js';
export { openSqliteStore } from './sqlite/index.js';
export type { SqliteStoreOptions } from './sqlite/index.js';
export type { AttributeFilter } from './attribute-pairs.js';
export { LOG_NOT_ATTRIBUTES, valueText } from './attribute-pairs.js';
export { byOperation } from './rollups.js';
