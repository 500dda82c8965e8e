import type { Collections, ProjectDoc } from './collections.js';
import { memberKey } from './collections.js';

/**
 * Tenant isolation: every read a user makes goes through these lookups, so a user sees only the organizations
 * they are a member of, whatever the routes check. Each is a read by primary key or by the memberships'
 * (userId, organizationId) index.
 */
export interface Access {
  isMember(organizationId: number, userId: string): Promise<boolean>;
  /** The project, if `userId` is a member of its organization. */
  visibleProject(projectId: number, userId: string): Promise<ProjectDoc | null>;
  /** Ids of the projects `userId` can see, optionally only `projectId`, ascending. */
  visibleProjects(userId: string, projectId?: number): Promise<number[]>;
}

export function createAccess(c: Collections): Access {
  const isMember = async (organizationId: number, userId: string): Promise<boolean> =>
    (await c.memberships.findOne({ _id: memberKey(organizationId, userId) }, { projection: { _id: 1 } })) !== null;

  return {
    isMember,
    async visibleProject(projectId, userId) {
      const project = await c.projects.findOne({ _id: projectId });
      return project !== null && (await isMember(project.organizationId, userId)) ? project : null;
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
