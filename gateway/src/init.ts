import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createPasswordHasher, createTokenService, generateApiKey } from '@lantern/auth';
import type { Config } from '@lantern/config';
import { schemas, validatorFor, type ValidationIssue } from '@lantern/domain';
import { openStore } from './adapters.js';
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
  /** False when the caller chose the password: it is not printed back. */
  passwordGenerated: boolean;
  token: string;
  organizationId: number;
  projectId: number;
  applicationId: number;
  apiKey: string;
}

/** An option of `lantern init` the API would refuse; the message names the option. */
export class InitInputError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid options:\n  - ${problems.join('\n  - ')}`);
    this.name = 'InitInputError';
  }
}

const registerBody = validatorFor(schemas.accounts.registerBody.$id);
const nameBody = validatorFor(schemas.accounts.organizationBody.$id);

/** The same rules as POST /auth/register and the name fields of the API, named by option. */
function checkOptions(opts: InitOptions, password: string): void {
  const named = (option: string, issues: ValidationIssue[]) => issues.map((i) => `--${option} ${i.message}`);
  const problems = [
    ...named('email', registerBody.issues({ email: opts.email.trim(), password: 'x'.repeat(8) })),
    ...named('password', registerBody.issues({ email: 'a@example.com', password })),
    ...(['organization', 'project', 'application'] as const).flatMap((option) => named(option, nameBody.issues({ name: opts[option] }))),
  ];
  if (problems.length > 0) throw new InitInputError(problems);
}

/** Creates a user, organization, project, application and API key directly in the configured store. */
export async function initAccount(config: Pick<Config, 'dataDir' | 'jwtSecret' | 'jwtTtlSeconds'> & Partial<Pick<Config, 'adapters' | 'retentionDays'>>, opts: InitOptions, storeFile?: string): Promise<InitResult> {
  const password = opts.password ?? randomBytes(12).toString('base64url');
  checkOptions(opts, password);
  await mkdir(config.dataDir, { recursive: true });
  const store = await openStore(config.adapters?.store ?? { kind: 'sqlite' }, { dataDir: config.dataDir, retentionDays: config.retentionDays ?? 0, readWorkers: 0, ...(storeFile ? { sqliteFile: storeFile } : {}) });
  try {
    const email = opts.email.trim().toLowerCase();
    const user = await store.createUser({ email, name: email.split('@')[0]!, passwordHash: await createPasswordHasher().hash(password) });
    const org = await store.createOrganization({ name: opts.organization.trim(), ownerId: user.id });
    const project = await store.createProject({ name: opts.project.trim(), organizationId: org.id });
    const app = await store.createApplication({ name: opts.application.trim(), projectId: project.id });
    const key = generateApiKey();
    await store.createApiKey({ applicationId: app.id, projectId: project.id, name: 'default', prefix: key.prefix, hash: key.hash });
    const tokens = createTokenService({ secret: config.jwtSecret ?? (await loadOrCreateSecret(config.dataDir)), ttlSeconds: config.jwtTtlSeconds, versions: store });
    return { email: user.email, password, passwordGenerated: opts.password === undefined, token: tokens.issue(user.id, 0), organizationId: org.id, projectId: project.id, applicationId: app.id, apiKey: key.key };
  } finally {
    await store.close();
  }
}

export function describeInit(r: InitResult, baseUrl: string): string {
  const now = '$(date -u +%Y-%m-%dT%H:%M:%S.000Z)';
  const uuid = `$(node -p 'crypto.randomUUID()')`;
  return `Created (shown once; keep them safe):
  user          ${r.email}
  password      ${r.passwordGenerated ? r.password : '(the one you passed with --password)'}
  organization  ${r.organizationId}
  project       ${r.projectId}
  application   ${r.applicationId}
  API key       ${r.apiKey}
  JWT           ${r.token}

Send a span (ingest takes the API key):
  curl -s -X POST ${baseUrl}/ingest/traces -H 'Content-Type: application/json' -H 'x-api-key: ${r.apiKey}' \\
    -d '{"timestamp":"'${now}'","traces":[{"traceId":"'${uuid}'","spanId":"'${uuid}'","parentSpanId":null,"timestamp":"'${now}'","requestMethod":"controller:GET","requestURL":"/hello","responseStatus":200,"durationMs":12}]}'

Send a log:
  curl -s -X POST ${baseUrl}/ingest/logs -H 'Content-Type: application/json' -H 'x-api-key: ${r.apiKey}' \\
    -d '{"timestamp":"'${now}'","logs":[{"level":"error","message":"payment failed","timestamp":"'${now}'"}]}'

Read them back (reads take the JWT; log in again with POST /auth/login when it expires):
  curl -s '${baseUrl}/logs/project?id=${r.projectId}' -H 'Authorization: Bearer ${r.token}'
  curl -s ${baseUrl}/ingest/logs -H 'Authorization: Bearer ${r.token}'
  curl -s ${baseUrl}/metrics -H 'Authorization: Bearer ${r.token}'
`;
}
