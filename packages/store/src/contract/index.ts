import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import { accountsContract } from './accounts.js';
import { aiContract } from './ai.js';
import { aiProcessingContract } from './ai-processing.js';
import { aiSearchContract } from './ai-search.js';
import { aiSemanticContract } from './ai-semantic.js';
import { credentialsContract } from './credentials.js';
import { useStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';
import { groupsContract } from './groups.js';
import { idempotencyContract } from './idempotency.js';
import { isolationContract } from './isolation.js';
import { limitsContract } from './limits.js';
import { logAttributesContract } from './log-attributes.js';
import { logsContract } from './logs.js';
import { maintenanceContract } from './maintenance.js';
import { membersContract } from './members.js';
import { metricsContract } from './metrics.js';
import { metricsHoursContract } from './metrics-hours.js';
import { metricsOperationsContract } from './metrics-operations.js';
import { serviceMapContract } from './service-map.js';
import { traceAttributesContract } from './trace-attributes.js';
import { traceQueriesContract } from './trace-queries.js';
import { tracesContract } from './traces.js';

export type { OpenStore } from './fixtures.js';

export interface ContractOptions {
  /**
   * Only the sections whose methods another thread may serve: span and log writes, trace and log streams, metrics
   * and chunk search (SQLite's writer thread and read workers), plus the lifecycle. Accounts, credentials, members,
   * AI records and limits run on the store's own connection whatever the threads: a variant that differs from
   * another only in its threads would run them again for nothing.
   */
  threadedSectionsOnly?: boolean;
}

/**
 * The behaviour every adapter of the store port must have, as jest tests that use the port only.
 * `open` must return a new, empty store each time it is called (once per test); after the test the suite
 * closes the store, then calls `cleanup`.
 */
export function describeStoreContract(adapterName: string, open: OpenStore, options: ContractOptions = {}): void {
  const all = options.threadedSectionsOnly !== true;
  describe(`store contract: ${adapterName}`, () => {
    const ctx = useStore(open);
    if (all) {
      accountsContract(ctx);
      credentialsContract(ctx);
      membersContract(ctx);
    }
    isolationContract(ctx);
    tracesContract(ctx);
    traceQueriesContract(ctx);
    traceAttributesContract(ctx);
    idempotencyContract(ctx);
    groupsContract(ctx);
    logsContract(ctx);
    logAttributesContract(ctx);
    maintenanceContract(ctx);
    metricsContract(ctx);
    metricsHoursContract(ctx);
    metricsOperationsContract(ctx);
    serviceMapContract(ctx);
    if (all) aiContract(ctx);
    aiProcessingContract(ctx);
    aiSearchContract(ctx);
    aiSemanticContract(ctx);
    if (all) limitsContract(ctx);

    describe('lifecycle', () => {
      it('answers ping while open', async () => {
        await expect(ctx.store.ping()).resolves.toBeUndefined();
      });

      it('rejects operations once closed, and closing again is harmless', async () => {
        await ctx.store.close();
        await expect(ctx.store.ping()).rejects.toBeDefined();
        await expect(ctx.store.getUser(newId())).rejects.toBeDefined();
        await expect(ctx.store.close()).resolves.toBeUndefined();
      });
    });
  });
}
