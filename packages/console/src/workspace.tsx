import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
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
  /** Reads organizations, projects and applications again (after one was created). */
  refresh(): Promise<void>;
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

  useEffect(() => {
    try {
      localStorage.setItem(SELECTION_KEY, JSON.stringify(selection));
    } catch {
      // storage refused: the selection lasts until reload
    }
  }, [selection]);

  const refresh = useCallback(async () => {
    const orgs = await client.listOrganizations();
    setOrganizations(orgs);
    const sel = { ...selection };
    const org = orgs.find((o) => o.id === sel.organizationId) ?? orgs[0];
    sel.organizationId = org?.id;
    const projs = org ? await client.listProjects(org.id) : [];
    setProjects(projs);
    const proj = projs.find((p) => p.id === sel.projectId) ?? projs[0];
    sel.projectId = proj?.id;
    const apps = proj ? await client.listApplications(proj.id) : [];
    setApplications(apps);
    if (!apps.some((a) => a.id === sel.applicationId)) delete sel.applicationId;
    setSelection(sel);
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
    selectOrganization: (id) => setSelection({ organizationId: id }),
    selectProject: (id) => setSelection((s) => ({ organizationId: s.organizationId, projectId: id })),
    selectApplication: (id) => setSelection((s) => ({ ...s, applicationId: id })),
    refresh,
  }), [user, organizations, projects, applications, selection, refresh]);

  return <WorkspaceContext.Provider value={value}>{children}</WorkspaceContext.Provider>;
}
