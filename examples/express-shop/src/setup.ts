import { api, ApiError } from './api.js';

/**
 * The demo's account, made through the HTTP API like a user would: register (or log in when the data directory
 * already has the demo user), then find or create the organization, project, the two applications, and a new
 * API key for each.
 */

export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_PASSWORD = 'lantern-demo';
const ORGANIZATION = 'Demo';
const PROJECT = 'Express shop';
export const APPS = ['shop', 'payments'] as const;
export type AppName = (typeof APPS)[number];

export interface DemoAccount {
  email: string;
  password: string;
  token: string;
  organizationId: number;
  projectId: number;
  apps: Record<AppName, { id: number; apiKey: string }>;
}

interface Named {
  id: number;
  name: string;
}

async function token(base: string): Promise<string> {
  const credentials = { email: DEMO_EMAIL, password: DEMO_PASSWORD };
  try {
    return (await api<{ token: string }>(base, 'POST', '/auth/register', { body: credentials })).body.token;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 409)) throw error;
  }
  try {
    return (await api<{ token: string }>(base, 'POST', '/auth/login', { body: credentials })).body.token;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw new Error(`${DEMO_EMAIL} exists in this data directory with another password: use another --data-dir`);
    }
    throw error;
  }
}

/** The one named `name` in the list at `listPath`, else a new one from POST `createPath`. */
async function findOrCreate(base: string, jwt: string, listPath: string, createPath: string, body: Record<string, unknown> & { name: string }): Promise<number> {
  const existing = (await api<Named[]>(base, 'GET', listPath, { token: jwt })).body.find((item) => item.name === body.name);
  if (existing) return existing.id;
  return (await api<Named>(base, 'POST', createPath, { token: jwt, body })).body.id;
}

export async function setUpAccount(base: string): Promise<DemoAccount> {
  const jwt = await token(base);
  const organizationId = await findOrCreate(base, jwt, '/organizations', '/organizations', { name: ORGANIZATION });
  const projectId = await findOrCreate(base, jwt, `/projects?organizationId=${organizationId}`, '/projects', { name: PROJECT, organizationId });
  const apps = {} as DemoAccount['apps'];
  for (const name of APPS) {
    const id = await findOrCreate(base, jwt, `/applications?projectId=${projectId}`, '/applications', { name, projectId });
    const key = await api<{ key: string }>(base, 'POST', `/applications/${id}/api-keys`, { token: jwt, body: { name: `pnpm demo ${new Date().toISOString()}` } });
    apps[name] = { id, apiKey: key.body.key };
  }
  return { email: DEMO_EMAIL, password: DEMO_PASSWORD, token: jwt, organizationId, projectId, apps };
}
