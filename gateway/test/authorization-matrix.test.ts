import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describeAuthorizationMatrix } from './authorization-matrix.shared.js';
import { startLantern } from './harness.js';

/** The authorization matrix against the embedded Lantern (every service in one process, supertest). */
describeAuthorizationMatrix(async () => {
  const l = await startLantern();
  return {
    http: l.http,
    settle: (check) => check(),
    documentStored: async (tenantId, documentId) => (await stat(join(l.dataDir, 'blobs', 'tenants', tenantId, 'documents', documentId)).catch(() => undefined))?.isFile() ?? false,
    stop: () => l.stop(),
  };
});
