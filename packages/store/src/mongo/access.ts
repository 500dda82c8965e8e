import { ROLE_RANK, type Role } from '@lantern/domain';
import type { Collections, ProjectDoc } from './collections.js';
import { memberKey } from './collections.js';

/**
 * Tenant isolation: every read a user makes goes through these lookups, so a user sees only the organizations
 * they are a member of, whatever the routes check. Each is a read by primary key or by the memberships'
 * (userId, organizationId) index.
 */
export interface Access {
  isMember(organizationId: number, userId: string): Promise<boolean>;
  /** The project, if `userId` is a member of its organization with at least `minRole` (default member). */
  visibleProject(projectId: number, userId: string, minRole?: Role): Promise<ProjectDoc | null>;
  /** Ids of the projects `userId` can see, optionally only `projectId`, ascending. */
  visibleProjects(userId: string, projectId?: number): Promise<number[]>;
}

export function createAccess(c: Collections): Access {
  const roleOf = async (organizationId: number, userId: string): Promise<Role | null> =>
    (await c.memberships.findOne({ _id: memberKey(organizationId, userId) }, { projection: { role: 1 } }))?.role ?? null;
  const isMember = async (organizationId: number, userId: string): Promise<boolean> => (await roleOf(organizationId, userId)) !== null;

  return {
    isMember,
    async visibleProject(projectId, userId, minRole = 'member') {
      const project = await c.projects.findOne({ _id: projectId });
      if (project === null) return null;
      const role = await roleOf(project.organizationId, userId);
      return role !== null && ROLE_RANK[role] >= ROLE_RANK[minRole] ? project : null;
    },
    async visibleProjects(userId, projectId) {
      const memberships = await c.memberships.find({ userId }, { projection: { organizationId: 1 } }).toArray();
      if (memberships.length === 0) return [];
      const organizationIds = memberships.map((m) => m.organizationId);
      const filter = projectId === undefined
        ? { organizationId: { $in: organizationIds } }
        : { _id: projectId, organizationId: { $in: organizationIds } };
      const projects = await c.projects.find(filter, { projection: { _id: 1 }, sort: { _id: 1 } }).toArray();
      return projects.map((p) => p._id);
    },
  };
}
