import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import * as client from './api/client';
import type { Application, Organization, Project, User } from './api/types';

/**
 * Who is signed in and which organization, project and application the console is looking at. The choice is kept
 * in localStorage, so a reload or a link opens on the same project.
 */
export interface Workspace {
  user: User;
  organizations: Organization[];
  projects: Project[];
  applications: Application[];
  organization: Organization | undefined;
  project: Project | undefined;
  /** The chosen application, or undefined for "all applications of the project". */
  application: Application | undefined;
  selectOrganization(id: number): void;
  selectProject(id: number): void;
  selectApplication(id: number | undefined): void;
  /**
   * Selects a project wherever it is among the user's organizations (for a link); false when it is not visible,
   * undefined when another selection came first while it looked (it then selects nothing).
   */
  showProject(projectId: number): Promise<boolean | undefined>;
  /** Reads organizations, projects and applications again (after one was created). */
  refresh(): Promise<void>;
  /** False until the first read of organizations, projects and applications has ended (well or not). */
  loaded: boolean;
  /** Why the last read failed, if it did; cleared by the next read that succeeds. */
  error: unknown;
}

const WorkspaceContext = createContext<Workspace | null>(null);
const SELECTION_KEY = 'lantern.selection';

interface Selection { organizationId?: number; projectId?: number; applicationId?: number }

function loadSelection(): Selection {
  try {
    return JSON.parse(localStorage.getItem(SELECTION_KEY) ?? '{}') as Selection;
  } catch {
    return {};
  }
}

export function useWorkspace(): Workspace {
  const ws = useContext(WorkspaceContext);
  if (!ws) throw new Error('useWorkspace outside <WorkspaceProvider>');
  return ws;
}

export function WorkspaceProvider({ user, children }: { user: User; children: ReactNode }) {
  const [organizations, setOrganizations] = useState<Organization[]>([]);
  const [projects, setProjects] = useState<Project[]>([]);
  const [applications, setApplications] = useState<Application[]>([]);
  const [selection, setSelection] = useState<Selection>(loadSelection);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>();
  // Only the latest read applies its answers: a slower earlier one (the selection changed meanwhile) is dropped.
  const readSeq = useRef(0);
  // Each selection, and each link's look-up, takes a number: a look-up that ends after a later one selects nothing.
  const choiceSeq = useRef(0);

  useEffect(() => {
    try {
      localStorage.setItem(SELECTION_KEY, JSON.stringify(selection));
    } catch {
      // storage refused: the selection lasts until reload
    }
  }, [selection]);

  const refresh = useCallback(async () => {
    const seq = ++readSeq.current;
    try {
      const sel = { ...selection };
      const orgs = await client.listOrganizations();
      const org = orgs.find((o) => o.id === sel.organizationId) ?? orgs[0];
      sel.organizationId = org?.id;
      const projs = org ? await client.listProjects(org.id) : [];
      const proj = projs.find((p) => p.id === sel.projectId) ?? projs[0];
      sel.projectId = proj?.id;
      const apps = proj ? await client.listApplications(proj.id) : [];
      if (!apps.some((a) => a.id === sel.applicationId)) delete sel.applicationId;
      if (seq !== readSeq.current) return;
      setOrganizations(orgs);
      setProjects(projs);
      setApplications(apps);
      setSelection(sel);
      setError(undefined);
    } catch (e) {
      if (seq === readSeq.current) setError(e);
      throw e;
    } finally {
      if (seq === readSeq.current) setLoaded(true);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selection.organizationId, selection.projectId, selection.applicationId]);

  useEffect(() => {
    void refresh().catch(() => undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selection.organizationId, selection.projectId]);

  const value = useMemo<Workspace>(() => ({
    user,
    organizations,
    projects,
    applications,
    organization: organizations.find((o) => o.id === selection.organizationId),
    project: projects.find((p) => p.id === selection.projectId),
    application: applications.find((a) => a.id === selection.applicationId),
    selectOrganization: (id) => {
      choiceSeq.current++;
      setSelection({ organizationId: id });
    },
    selectProject: (id) => {
      choiceSeq.current++;
      setSelection((s) => ({ organizationId: s.organizationId, projectId: id }));
    },
    selectApplication: (id) => setSelection((s) => ({ ...s, applicationId: id })),
    showProject: async (projectId) => {
      const seq = ++choiceSeq.current;
      // The project names its organization: the selection takes both from it, never the organization selected now,
      // which may already be another one while `projects` still lists the last one's (a switch being read).
      let project = projects.find((p) => p.id === projectId);
      for (const org of organizations) {
        if (project) break;
        project = (await client.listProjects(org.id)).find((p) => p.id === projectId);
      }
      if (seq !== choiceSeq.current) return undefined;
      if (!project) return false;
      setSelection({ organizationId: project.organizationId, projectId });
      return true;
    },
    refresh,
    loaded,
    error,
  }), [user, organizations, projects, applications, selection, refresh, loaded, error]);

  return <WorkspaceContext.Provider value={value}>{children}</WorkspaceContext.Provider>;
}
