import type { Database } from 'better-sqlite3';
import { errors, newId, ROLE_RANK, toIso } from '@lantern/domain';
import type { Application, Membership, Organization, Project, Role, User } from '@lantern/domain';
import type { AccountsStore, ApiKeyInput, StoredApiKey, StoredUser } from '../port.js';
import { guard } from './errors.js';
import { createMembersStore, MIN_RANK } from './members.js';

const EMAIL_TAKEN = 'An account with this email already exists.';

interface ApiKeyRow {
  id: string;
  application_id: number;
  project_id: number;
  name: string;
  prefix: string;
  created_ms: number;
  revoked_ms: number | null;
}

const STORED_USER = `u.id, u.email, u.name, u.password_hash AS passwordHash, coalesce(t.version, 0) AS tokenVersion
  FROM users u LEFT JOIN user_tokens t ON t.user_id = u.id`;
const KEY_COLUMNS = 'k.id, k.application_id, k.project_id, k.name, k.prefix, k.created_ms, k.revoked_ms';
/**
 * Joins that keep only rows of organizations `@userId` belongs to with at least the role of rank `@minRank`: the
 * tenant isolation and the role matrix of every read.
 */
const MEMBER_OF_PROJECT = `JOIN memberships m ON m.organization_id = p.organization_id AND m.user_id = @userId AND ${MIN_RANK}`;

function toApiKey(row: ApiKeyRow): StoredApiKey {
  return {
    id: row.id,
    applicationId: row.application_id,
    projectId: row.project_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: toIso(row.created_ms),
    revokedAt: row.revoked_ms === null ? null : toIso(row.revoked_ms),
  };
}

export function createAccountsStore(db: Database, now: () => number): AccountsStore {
  const q = {
    insertUser: db.prepare('INSERT INTO users (id, email, email_lower, name, password_hash, created_ms) VALUES (?, ?, ?, ?, ?, ?)'),
    userByEmail: db.prepare<[string], StoredUser>(`SELECT ${STORED_USER} WHERE u.email_lower = ?`),
    userById: db.prepare<[string], User>('SELECT id, email, name FROM users WHERE id = ?'),
    storedUserById: db.prepare<[string], StoredUser>(`SELECT ${STORED_USER} WHERE u.id = ?`),
    tokenVersion: db.prepare<[string], number>(`SELECT coalesce(t.version, 0) FROM users u
      LEFT JOIN user_tokens t ON t.user_id = u.id WHERE u.id = ?`).pluck(),
    bumpVersion: db.prepare<[string], number>(`INSERT INTO user_tokens (user_id, version) VALUES (?, 1)
      ON CONFLICT (user_id) DO UPDATE SET version = version + 1 RETURNING version`).pluck(),
    setHash: db.prepare<[string, string, string]>('UPDATE users SET password_hash = ? WHERE id = ? AND password_hash = ?'),
    anyUser: db.prepare<[], number>('SELECT EXISTS (SELECT 1 FROM users)').pluck(),
    insertOrg: db.prepare<[string, number], { id: number }>('INSERT INTO organizations (name, created_ms) VALUES (?, ?) RETURNING id'),
    createdBy: db.prepare<[string], number>('SELECT count(*) FROM organization_creators WHERE user_id = ?').pluck(),
    insertCreator: db.prepare<[number, string]>('INSERT INTO organization_creators (organization_id, user_id) VALUES (?, ?)'),
    upsertMember: db.prepare(`INSERT INTO memberships (organization_id, user_id, role) VALUES (?, ?, ?)
      ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role`),
    memberships: db.prepare<[string], Membership>(`SELECT o.id, o.name, m.role FROM memberships m
      JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ? ORDER BY o.id`),
    role: db.prepare<[number, string], { role: Role }>('SELECT role FROM memberships WHERE organization_id = ? AND user_id = ?'),
    insertProject: db.prepare<[string, number], { id: number }>('INSERT INTO projects (name, organization_id) VALUES (?, ?) RETURNING id'),
    project: db.prepare<[{ id: number; userId: string; minRank: number }], Project>(`SELECT p.id, p.name, p.organization_id AS organizationId
      FROM projects p ${MEMBER_OF_PROJECT} WHERE p.id = @id`),
    projects: db.prepare<[{ organizationId: number; userId: string; minRank: number }], Project>(`SELECT p.id, p.name, p.organization_id AS organizationId
      FROM projects p ${MEMBER_OF_PROJECT} WHERE p.organization_id = @organizationId ORDER BY p.id`),
    insertApp: db.prepare<[string, number], { id: number }>('INSERT INTO applications (name, project_id) VALUES (?, ?) RETURNING id'),
    application: db.prepare<[{ id: number; userId: string; minRank: number }], Application>(`SELECT a.id, a.name, a.project_id AS projectId
      FROM applications a JOIN projects p ON p.id = a.project_id ${MEMBER_OF_PROJECT} WHERE a.id = @id`),
    applications: db.prepare<[{ projectId: number; userId: string; minRank: number }], Application>(`SELECT a.id, a.name, a.project_id AS projectId
      FROM applications a JOIN projects p ON p.id = a.project_id ${MEMBER_OF_PROJECT} WHERE a.project_id = @projectId ORDER BY a.id`),
    activeKeys: db.prepare<[number], number>('SELECT count(*) FROM api_keys WHERE application_id = ? AND revoked_ms IS NULL').pluck(),
    appOfProject: db.prepare<[number, number], { id: number }>('SELECT id FROM applications WHERE id = ? AND project_id = ?'),
    insertKey: db.prepare(`INSERT INTO api_keys (id, application_id, project_id, name, prefix, hash, created_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    keys: db.prepare<[{ applicationId: number; userId: string; minRank: number }], ApiKeyRow>(`SELECT ${KEY_COLUMNS}
      FROM api_keys k JOIN projects p ON p.id = k.project_id ${MEMBER_OF_PROJECT} WHERE k.application_id = @applicationId ORDER BY k.seq`),
    key: db.prepare<[{ id: string; userId: string; minRank: number }], ApiKeyRow>(`SELECT ${KEY_COLUMNS}
      FROM api_keys k JOIN projects p ON p.id = k.project_id ${MEMBER_OF_PROJECT} WHERE k.id = @id`),
    keyByHash: db.prepare<[string], ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.hash = ?`),
    revokeKey: db.prepare<[number, string]>('UPDATE api_keys SET revoked_ms = coalesce(revoked_ms, ?) WHERE id = ?'),
  };

  /** The count of the user's created organizations and the creation in one write transaction: null past the cap. */
  const createOrganization = db.transaction((name: string, ownerId: string, maxCreated: number): Organization | null => {
    if (Number.isFinite(maxCreated) && q.createdBy.get(ownerId)! >= maxCreated) return null;
    const { id } = q.insertOrg.get(name, now())!;
    q.upsertMember.run(id, ownerId, 'owner');
    q.insertCreator.run(id, ownerId);
    return { id, name };
  });

  /** The new token version, or null if no such user. */
  const revokeTokens = db.transaction((userId: string): number | null =>
    (q.userById.get(userId) ? q.bumpVersion.get(userId)! : null));
  /** Compare-and-set of the hash, the version raised in the same transaction when asked. */
  const setPasswordHash = db.transaction((userId: string, expected: string, next: string, revoke: boolean): number | null => {
    if (q.setHash.run(next, userId, expected).changes === 0) return null;
    return revoke ? q.bumpVersion.get(userId)! : q.tokenVersion.get(userId)!;
  });

  /** Counts the application's active keys and inserts the new one in one write transaction: false past the cap. */
  const insertKey = db.transaction((maxActive: number, id: string, applicationId: number, projectId: number, name: string, prefix: string, hash: string, createdMs: number) => {
    // The key's project decides where its telemetry goes: it must be the application's own project.
    if (!q.appOfProject.get(applicationId, projectId)) throw errors.notFound('application');
    if (Number.isFinite(maxActive) && q.activeKeys.get(applicationId)! >= maxActive) return false;
    q.insertKey.run(id, applicationId, projectId, name, prefix, hash, createdMs);
    return true;
  });

  return {
    ...createMembersStore(db, now),
    async createUser({ email, name, passwordHash }) {
      const id = newId();
      guard(() => q.insertUser.run(id, email, email.toLowerCase(), name, passwordHash, now()), { unique: EMAIL_TAKEN });
      return { id, email, name };
    },
    async findUserByEmail(email) {
      const row = guard(() => q.userByEmail.get(email.toLowerCase()));
      return row ? { ...row } : null;
    },
    async getUser(id) {
      return guard(() => q.userById.get(id)) ?? null;
    },
    async getStoredUser(id) {
      const row = guard(() => q.storedUserById.get(id));
      return row ? { ...row } : null;
    },
    async getTokenVersion(userId) {
      return guard(() => q.tokenVersion.get(userId)) ?? null;
    },
    async revokeTokens(userId) {
      return guard(() => revokeTokens.immediate(userId));
    },
    async setPasswordHash(id, expected, next, { revokeTokens: revoke }) {
      return guard(() => setPasswordHash.immediate(id, expected, next, revoke));
    },
    async hasUsers() {
      return guard(() => q.anyUser.get()) === 1;
    },
    createOrganization: (async ({ name, ownerId }: { name: string; ownerId: string }, limit?: { maxCreated: number }) =>
      guard(() => createOrganization.immediate(name, ownerId, limit?.maxCreated ?? Infinity), { foreignKey: 'user' })) as AccountsStore['createOrganization'],
    async listMemberships(userId) {
      return guard(() => q.memberships.all(userId));
    },
    async getRole(organizationId, userId) {
      return guard(() => q.role.get(organizationId, userId))?.role ?? null;
    },
    async addMember(organizationId, userId, role) {
      guard(() => q.upsertMember.run(organizationId, userId, role), { foreignKey: 'organization or user' });
    },
    async createProject({ name, organizationId }) {
      const { id } = guard(() => q.insertProject.get(name, organizationId)!, { foreignKey: 'organization' });
      return { id, name, organizationId };
    },
    async getProject(id, userId, minRole = 'member') {
      return guard(() => q.project.get({ id, userId, minRank: ROLE_RANK[minRole] })) ?? null;
    },
    async listProjects(organizationId, userId) {
      return guard(() => q.projects.all({ organizationId, userId, minRank: ROLE_RANK.member }));
    },
    async createApplication({ name, projectId }) {
      const { id } = guard(() => q.insertApp.get(name, projectId)!, { foreignKey: 'project' });
      return { id, name, projectId };
    },
    async getApplication(id, userId, minRole = 'member') {
      return guard(() => q.application.get({ id, userId, minRank: ROLE_RANK[minRole] })) ?? null;
    },
    async listApplications(projectId, userId) {
      return guard(() => q.applications.all({ projectId, userId, minRank: ROLE_RANK.member }));
    },
    createApiKey: (async ({ applicationId, projectId, name, prefix, hash }: ApiKeyInput, limit?: { maxActive: number }) => {
      const id = newId();
      const createdMs = now();
      const created = guard(() => insertKey.immediate(limit?.maxActive ?? Infinity, id, applicationId, projectId, name, prefix, hash, createdMs));
      return created ? { id, applicationId, projectId, name, prefix, createdAt: toIso(createdMs), revokedAt: null } : null;
    }) as AccountsStore['createApiKey'],
    async listApiKeys(applicationId, userId) {
      return guard(() => q.keys.all({ applicationId, userId, minRank: ROLE_RANK.admin })).map(toApiKey);
    },
    async getApiKey(id, userId) {
      const row = guard(() => q.key.get({ id, userId, minRank: ROLE_RANK.admin }));
      return row ? toApiKey(row) : null;
    },
    async revokeApiKey(id) {
      return guard(() => q.revokeKey.run(now(), id)).changes > 0;
    },
    async findApiKeyByHash(hash) {
      const row = guard(() => q.keyByHash.get(hash));
      return row ? toApiKey(row) : null;
    },
  };
}
