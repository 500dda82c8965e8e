import { errors, newId, toIso } from '@lantern/domain';
import type { Application, Membership, Project, Role } from '@lantern/domain';
import type { AccountsStore, ApiKeyInput, StoredApiKey, StoredUser } from '../port.js';
import type { ApiKeyDoc, ApplicationDoc, ProjectDoc, RecordStoreDeps, UserDoc } from './collections.js';
import { memberKey } from './collections.js';
import { createMembersStore } from './members.js';

const EMAIL_TAKEN = 'An account with this email already exists.';

const toProject = (p: ProjectDoc): Project => ({ id: p._id, name: p.name, organizationId: p.organizationId });
const toApplication = (a: ApplicationDoc): Application => ({ id: a._id, name: a.name, projectId: a.projectId });

function toApiKey(k: ApiKeyDoc): StoredApiKey {
  return {
    id: k._id,
    applicationId: k.applicationId,
    projectId: k.projectId,
    name: k.name,
    prefix: k.prefix,
    createdAt: toIso(k.createdAt.getTime()),
    revokedAt: k.revokedAt === null ? null : toIso(k.revokedAt.getTime()),
  };
}

/**
 * Users, organizations, memberships, projects, applications and API keys. Without foreign keys, a write that
 * references another record checks that it exists first (404 as the SQLite store answers); nothing deletes
 * those records, so the check cannot be overtaken.
 */
export function createAccountsStore({ c, guard, access, next, now }: RecordStoreDeps): AccountsStore {
  /** Starts the organization counter of a user stored before there was one: the organizations they created, once. */
  async function startOrganizationCounter(userId: string): Promise<void> {
    const n = await c.organizations.countDocuments({ createdBy: userId });
    await c.users.updateOne({ _id: userId, organizationsCreated: { $exists: false } }, { $set: { organizationsCreated: n } });
  }

  /**
   * Starts the key counter of an application created before there was one: its unrevoked keys, counted once (the
   * first $set wins; no key is created without the counter). A revocation between the count and the $set leaves
   * it one too high, which only makes the cap stricter until then.
   */
  async function startKeyCounter(applicationId: number): Promise<void> {
    const n = await c.apiKeys.countDocuments({ applicationId, revokedAt: null });
    await c.applications.updateOne({ _id: applicationId, activeKeys: { $exists: false } }, { $set: { activeKeys: n } });
  }

  const exists = async (found: Promise<unknown>, what: string): Promise<void> => {
    if ((await found) === null) throw errors.notFound(what);
  };
  const byId = { projection: { _id: 1 } };

  /** The application, if `userId` has at least `minRole` in the organization of its project. */
  async function visibleApplication(id: number, userId: string, minRole: Role = 'member'): Promise<ApplicationDoc | null> {
    const app = await c.applications.findOne({ _id: id });
    return app !== null && (await access.visibleProject(app.projectId, userId, minRole)) !== null ? app : null;
  }
  const toStored = (u: UserDoc): StoredUser => ({ id: u._id, email: u.email, name: u.name, passwordHash: u.passwordHash, tokenVersion: u.tokenVersion ?? 0 });

  return {
    ...createMembersStore({ c, guard, access, next, now }),
    createUser: ({ email, name, passwordHash }) => guard.run(async () => {
      const id = newId();
      await c.users.insertOne({ _id: id, email, emailLower: email.toLowerCase(), name, passwordHash, createdAt: new Date(now()), organizationsCreated: 0 });
      return { id, email, name };
    }, { duplicate: EMAIL_TAKEN }),

    findUserByEmail: (email) => guard.run(async () => {
      const u = await c.users.findOne({ emailLower: email.toLowerCase() });
      return u === null ? null : toStored(u);
    }),

    getStoredUser: (id) => guard.run(async () => {
      const u = await c.users.findOne({ _id: id });
      return u === null ? null : toStored(u);
    }),

    getTokenVersion: (userId) => guard.run(async () => {
      const u = await c.users.findOne({ _id: userId }, { projection: { tokenVersion: 1 } });
      return u === null ? null : (u.tokenVersion ?? 0);
    }),

    revokeTokens: (userId) => guard.run(async () => {
      const u = await c.users.findOneAndUpdate({ _id: userId }, { $inc: { tokenVersion: 1 } }, { returnDocument: 'after', projection: { tokenVersion: 1 } });
      return u === null ? null : (u.tokenVersion ?? 0);
    }),

    setPasswordHash: (userId, expected, nextHash, { revokeTokens }) => guard.run(async () => {
      const u = await c.users.findOneAndUpdate({ _id: userId, passwordHash: expected },
        { $set: { passwordHash: nextHash }, $inc: { tokenVersion: revokeTokens ? 1 : 0 } }, { returnDocument: 'after', projection: { tokenVersion: 1 } });
      return u === null ? null : (u.tokenVersion ?? 0);
    }),

    getUser: (id) => guard.run(async () => {
      const u = await c.users.findOne({ _id: id }, { projection: { email: 1, name: 1 } });
      return u === null ? null : { id: u._id, email: u.email, name: u.name };
    }),

    hasUsers: () => guard.run(async () => (await c.users.findOne({}, byId)) !== null),

    createOrganization: (({ name, ownerId }: { name: string; ownerId: string }, limit?: { maxCreated: number }) => guard.run(async () => {
      const user = await c.users.findOne({ _id: ownerId }, { projection: { organizationsCreated: 1 } });
      if (user === null) throw errors.notFound('user');
      if (user.organizationsCreated === undefined) await startOrganizationCounter(ownerId);
      // The place is taken first, under the cap, in one conditional update: parallel creations never pass it together.
      const cap = limit === undefined ? {} : { organizationsCreated: { $lt: limit.maxCreated } };
      const taken = await c.users.updateOne({ _id: ownerId, organizationsCreated: { $exists: true }, ...cap }, { $inc: { organizationsCreated: 1 } });
      if (taken.matchedCount === 0) return null;
      const id = await next('organizations');
      // The organization first, then its owner: a crash in between leaves an organization nobody sees.
      await c.organizations.insertOne({ _id: id, name, createdAt: new Date(now()), createdBy: ownerId });
      await c.memberships.updateOne({ _id: memberKey(id, ownerId) },
        { $set: { role: 'owner' }, $setOnInsert: { organizationId: id, userId: ownerId } }, { upsert: true });
      return { id, name };
    })) as AccountsStore['createOrganization'],

    listMemberships: (userId) => guard.run(async () => {
      const memberships = await c.memberships.find({ userId }, { sort: { organizationId: 1 } }).toArray();
      if (memberships.length === 0) return [];
      const organizations = await c.organizations.find({ _id: { $in: memberships.map((m) => m.organizationId) } }).toArray();
      const names = new Map(organizations.map((o) => [o._id, o.name]));
      return memberships.flatMap((m): Membership[] => {
        const name = names.get(m.organizationId);
        return name === undefined ? [] : [{ id: m.organizationId, name, role: m.role }];
      });
    }),

    getRole: (organizationId, userId) => guard.run(async () =>
      (await c.memberships.findOne({ _id: memberKey(organizationId, userId) }))?.role ?? null),

    addMember: (organizationId, userId, role) => guard.run(async () => {
      const [org, user] = await Promise.all([
        c.organizations.findOne({ _id: organizationId }, byId), c.users.findOne({ _id: userId }, byId),
      ]);
      if (org === null || user === null) throw errors.notFound('organization or user');
      await c.memberships.updateOne({ _id: memberKey(organizationId, userId) },
        { $set: { role }, $setOnInsert: { organizationId, userId } }, { upsert: true });
    }),

    createProject: ({ name, organizationId }) => guard.run(async () => {
      await exists(c.organizations.findOne({ _id: organizationId }, byId), 'organization');
      const id = await next('projects');
      await c.projects.insertOne({ _id: id, organizationId, name });
      return { id, name, organizationId };
    }),

    getProject: (id, userId, minRole = 'member') => guard.run(async () => {
      const project = await access.visibleProject(id, userId, minRole);
      return project === null ? null : toProject(project);
    }),

    listProjects: (organizationId, userId) => guard.run(async () => {
      if (!(await access.isMember(organizationId, userId))) return [];
      return (await c.projects.find({ organizationId }, { sort: { _id: 1 } }).toArray()).map(toProject);
    }),

    createApplication: ({ name, projectId }) => guard.run(async () => {
      await exists(c.projects.findOne({ _id: projectId }, byId), 'project');
      const id = await next('applications');
      await c.applications.insertOne({ _id: id, projectId, name, activeKeys: 0 });
      return { id, name, projectId };
    }),

    getApplication: (id, userId, minRole = 'member') => guard.run(async () => {
      const app = await visibleApplication(id, userId, minRole);
      return app === null ? null : toApplication(app);
    }),

    listApplications: (projectId, userId) => guard.run(async () => {
      if ((await access.visibleProject(projectId, userId)) === null) return [];
      return (await c.applications.find({ projectId }, { sort: { _id: 1 } }).toArray()).map(toApplication);
    }),

    createApiKey: ((input: ApiKeyInput, limit?: { maxActive: number }) => guard.run(async () => {
      const { applicationId, projectId, name, prefix, hash } = input;
      // The key's project decides where its telemetry goes: it must be the application's own project.
      const app = await c.applications.findOne({ _id: applicationId, projectId }, { projection: { activeKeys: 1 } });
      if (app === null) throw errors.notFound('application');
      if (app.activeKeys === undefined) await startKeyCounter(applicationId);
      // The place is taken first, under the cap, in one conditional update: parallel creations never pass it together.
      const cap = limit === undefined ? {} : { activeKeys: { $lt: limit.maxActive } };
      const { matchedCount } = await c.applications.updateOne({ _id: applicationId, activeKeys: { $exists: true }, ...cap }, { $inc: { activeKeys: 1 } });
      if (matchedCount === 0) return null;
      const doc: ApiKeyDoc = {
        _id: newId(), seq: await next('apiKeys'), applicationId, projectId, name, prefix, hash, createdAt: new Date(now()), revokedAt: null,
      };
      try {
        await c.apiKeys.insertOne(doc);
      } catch (e) {
        await c.applications.updateOne({ _id: applicationId }, { $inc: { activeKeys: -1 } });
        throw e;
      }
      return toApiKey(doc);
    })) as AccountsStore['createApiKey'],

    listApiKeys: (applicationId, userId) => guard.run(async () => {
      if ((await visibleApplication(applicationId, userId, 'admin')) === null) return [];
      return (await c.apiKeys.find({ applicationId }, { sort: { seq: 1 } }).toArray()).map(toApiKey);
    }),

    getApiKey: (id, userId) => guard.run(async () => {
      const key = await c.apiKeys.findOne({ _id: id });
      return key !== null && (await access.visibleProject(key.projectId, userId, 'admin')) !== null ? toApiKey(key) : null;
    }),

    revokeApiKey: (id) => guard.run(async () => {
      // Only an unrevoked key changes, so a second revocation keeps the first time.
      const key = await c.apiKeys.findOneAndUpdate({ _id: id, revokedAt: null }, { $set: { revokedAt: new Date(now()) } }, { projection: { applicationId: 1 } });
      // The key no longer counts toward its application's cap (a counter not started yet counts the keys when it starts).
      if (key !== null) await c.applications.updateOne({ _id: key.applicationId, activeKeys: { $gt: 0 } }, { $inc: { activeKeys: -1 } });
      return key !== null || (await c.apiKeys.findOne({ _id: id }, byId)) !== null;
    }),

    findApiKeyByHash: (hash) => guard.run(async () => {
      const key = await c.apiKeys.findOne({ hash });
      return key === null ? null : toApiKey(key);
    }),
  };
}
