export { createKafkaBus, type KafkaBus } from './bus.js';
export type { BusLogger, KafkaBusOptions } from './options.js';
