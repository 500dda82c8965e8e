import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createTokenService, generateApiKey, hashPassword } from '@lantern/auth';
import type { Config } from '@lantern/config';
import { openSqliteStore } from '@lantern/store';
import { loadOrCreateSecret } from './secret.js';

export interface InitOptions {
  email: string;
  password?: string;
  organization: string;
  project: string;
  application: string;
}

export interface InitResult {
  email: string;
  password: string;
  token: string;
  organizationId: number;
  projectId: number;
  applicationId: number;
  apiKey: string;
}

/** Creates a user, organization, project, application and API key directly in the embedded store. */
export async function initAccount(config: Pick<Config, 'dataDir' | 'jwtSecret' | 'jwtTtlSeconds'>, opts: InitOptions, storeFile?: string): Promise<InitResult> {
  const store = await openSqliteStore({ file: storeFile ?? join(config.dataDir, 'lantern.db') });
  try {
    const password = opts.password ?? randomBytes(12).toString('base64url');
    const user = await store.createUser({ email: opts.email.toLowerCase(), name: opts.email.split('@')[0]!, passwordHash: await hashPassword(password) });
    const org = await store.createOrganization({ name: opts.organization, ownerId: user.id });
    const project = await store.createProject({ name: opts.project, organizationId: org.id });
    const app = await store.createApplication({ name: opts.application, projectId: project.id });
    const key = generateApiKey();
    await store.createApiKey({ applicationId: app.id, projectId: project.id, name: 'default', prefix: key.prefix, hash: key.hash });
    const tokens = createTokenService({ secret: config.jwtSecret ?? (await loadOrCreateSecret(config.dataDir)), ttlSeconds: config.jwtTtlSeconds });
    return { email: user.email, password, token: tokens.issue(user.id), organizationId: org.id, projectId: project.id, applicationId: app.id, apiKey: key.key };
  } finally {
    await store.close();
  }
}

export function describeInit(r: InitResult, baseUrl: string): string {
  const now = '$(date -u +%Y-%m-%dT%H:%M:%S.000Z)';
  const trace = '$(cat /proc/sys/kernel/random/uuid)';
  return `Created (shown once; keep them safe):
  user          ${r.email}
  password      ${r.password}
  organization  ${r.organizationId}
  project       ${r.projectId}
  application   ${r.applicationId}
  API key       ${r.apiKey}
  JWT           ${r.token}

Send a span (ingest takes the API key):
  curl -s -X POST ${baseUrl}/ingest/traces -H 'Content-Type: application/json' -H 'x-api-key: ${r.apiKey}' \\
    -d '{"timestamp":"'${now}'","traces":[{"traceId":"'${trace}'","spanId":"'${trace}'","parentSpanId":null,"timestamp":"'${now}'","requestMethod":"controller:GET","requestURL":"/hello","responseStatus":200,"durationMs":12}]}'

Send a log:
  curl -s -X POST ${baseUrl}/ingest/logs -H 'Content-Type: application/json' -H 'x-api-key: ${r.apiKey}' \\
    -d '{"timestamp":"'${now}'","logs":[{"level":"error","message":"payment failed","timestamp":"'${now}'"}]}'

Read them back (reads take the JWT; log in again with POST /auth/login when it expires):
  curl -s '${baseUrl}/logs/project?id=${r.projectId}' -H 'Authorization: Bearer ${r.token}'
  curl -s ${baseUrl}/ingest/logs -H 'Authorization: Bearer ${r.token}'
  curl -s ${baseUrl}/metrics -H 'Authorization: Bearer ${r.token}'
`;
}
