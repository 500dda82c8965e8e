import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@lantern/store';
import { describeStoreContract } from '@lantern/store/contract';

describeStoreContract('sqlite (memory)', async () => ({ store: await openSqliteStore({ file: ':memory:' }) }));

describeStoreContract('sqlite (file)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lantern-store-'));
  const store = await openSqliteStore({ file: join(dir, 'lantern.db') });
  return { store, cleanup: () => rm(dir, { recursive: true, force: true }) };
});

// The variants with threads run only the sections the threads serve (ContractOptions): the others ran above.
// The embedded server's configuration: spans and logs written by the writer thread, on its own connection.
describeStoreContract('sqlite (file, writer thread)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lantern-store-'));
  const store = await openSqliteStore({ file: join(dir, 'lantern.db'), writerThread: true });
  return { store, cleanup: () => rm(dir, { recursive: true, force: true }) };
}, { threadedSectionsOnly: true });

// The embedded server's reads: on read worker threads, each with a read-only connection of its own.
describeStoreContract('sqlite (file, writer thread, read workers)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lantern-store-'));
  const store = await openSqliteStore({ file: join(dir, 'lantern.db'), writerThread: true, readWorkers: 2 });
  return { store, cleanup: () => rm(dir, { recursive: true, force: true }) };
}, { threadedSectionsOnly: true });
