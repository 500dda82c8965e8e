import * as accounts from './accounts.js';
import * as ai from './ai.js';
import * as misc from './misc.js';
import * as otlp from './otlp.js';
import * as telemetry from './telemetry.js';

export { accounts, ai, misc, otlp, telemetry };

/** Every named schema, by its `$id`: what the services validate with and what the OpenAPI document lists. */
export const allSchemas = [
  ...Object.values(telemetry),
  ...Object.values(accounts),
  ...Object.values(ai),
  ...Object.values(misc),
  ...Object.values(otlp),
] as ReadonlyArray<{ $id: string }>;
