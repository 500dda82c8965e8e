import { join } from 'node:path';
import { createFsBlobStore, type BlobStore } from '@lantern/blobs';
import { createMemoryBus, type Bus } from '@lantern/bus';
import type { BlobsConfig, BusConfig, StoreConfig } from '@lantern/config';
import type { Logger } from '@lantern/logging';
import { openSqliteStore, type Store } from '@lantern/store';

/**
 * Opens the adapters the configuration names. The Kafka, MongoDB and MinIO clients are imported only when chosen,
 * so the embedded start never loads them. Services see the ports (Store, Bus, BlobStore) only.
 */

export async function openStore(config: StoreConfig, options: { dataDir: string; retentionDays: number; sqliteFile?: string; readWorkers?: number }): Promise<Store> {
  if (config.kind === 'sqlite') {
    return openSqliteStore({ file: options.sqliteFile ?? join(options.dataDir, 'lantern.db'), writerThread: true, readWorkers: options.readWorkers ?? 2 });
  }
  const { createMongoStore } = await import('@lantern/store/mongo');
  return createMongoStore({ url: config.url, database: config.database, retentionDays: options.retentionDays });
}

export async function openBus(config: BusConfig, options: { clientId: string; logger: Logger }): Promise<Bus> {
  if (config.kind === 'memory') return createMemoryBus();
  const { createKafkaBus } = await import('@lantern/bus/kafka');
  const bus = createKafkaBus({ brokers: config.brokers, clientId: options.clientId, topicPrefix: config.topicPrefix, partitions: config.partitions, logger: options.logger });
  // The topics, with their partitions, before any traffic. If Kafka is not there yet the process still starts
  // (not ready: /readyz checks the bus) and the first publish or subscription creates them.
  await bus.ensureTopics().catch((err: unknown) => options.logger.warn('Kafka topics not created yet; retried on first use', { error: err instanceof Error ? err.message : String(err) }));
  return bus;
}

export async function openBlobs(config: BlobsConfig, options: { dataDir: string }): Promise<BlobStore> {
  if (config.kind === 'fs') return createFsBlobStore({ root: join(options.dataDir, 'blobs') });
  const { createMinioBlobStore, minioOptionsFromUrl } = await import('@lantern/blobs/minio');
  return createMinioBlobStore(minioOptionsFromUrl(config.url, config.bucket));
}

/**
 * What a process opened, closed in reverse order even if one close fails (the first error is rethrown after).
 * `guard` closes what was opened so far when start-up fails halfway.
 */
export class Closers {
  private readonly list: Array<() => Promise<void>> = [];

  add<T extends { close(): Promise<void> }>(resource: T): T {
    this.list.push(() => resource.close());
    return resource;
  }

  push(close: () => Promise<void>): void {
    this.list.push(close);
  }

  async guard<T>(open: () => Promise<T>): Promise<T> {
    try {
      return await open();
    } catch (err) {
      await this.closeAll().catch(() => undefined);
      throw err;
    }
  }

  async closeAll(): Promise<void> {
    let failure: { error: unknown } | undefined;
    for (const close of this.list.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}
