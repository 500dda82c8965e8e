// The top bar's organization, project and application switchers. Each select ends with a "+ New …" entry that
// opens that step of the setup page (#/setup?step=...). A switch changes the URL (a history entry: Back returns to
// the view before), and the shell then switches the workspace to what the URL names (App.tsx, ScopeOfLink).
//
// data-testid:
//   switchers        the group of selects
//   org-switcher     <select> of the organizations ("+ New organization" has value "new")
//   project-switcher <select> of the organization's projects ("+ New project" has value "new")
//   app-switcher     <select> of the project's applications: "" = All applications, "new" = "+ New application"
import { useId, type ReactNode } from 'react';
import { isScopedPath, switchTarget, type ViewScope } from '../lib/view-scope';
import { navigate, useRoute } from '../router';
import { useWorkspace } from '../workspace';

const NEW = 'new';

export function Switchers() {
  const ws = useWorkspace();
  const route = useRoute();
  if (!ws.loaded || !ws.organizations.length) return null;
  const addNew = (step: string) => navigate('/setup', { step });
  const go = (next: ViewScope, kind: 'organization' | 'project' | 'application') => {
    // Onboarding is about no one project: the workspace switches at once, the URL stays.
    if (!isScopedPath(route.path)) {
      if (kind === 'organization') return ws.selectOrganization(next.organizationId!);
      if (kind === 'project') return ws.selectProject(next.projectId!);
      return ws.selectApplication(typeof next.applicationId === 'number' ? next.applicationId : undefined);
    }
    const target = switchTarget(route.path, route.params, next, kind);
    navigate(target.path, target.params);
  };

  return (
    <div className="switchers" data-testid="switchers">
      <Switcher
        label="Organization"
        testid="org-switcher"
        value={ws.organization?.id}
        onChange={(v) => (v === NEW ? addNew('organization') : go({ organizationId: Number(v) }, 'organization'))}
      >
        {ws.organizations.map((o) => <option key={o.id} value={o.id}>{o.name}</option>)}
        <option value={NEW}>+ New organization</option>
      </Switcher>
      <Switcher
        label="Project"
        testid="project-switcher"
        value={ws.project?.id}
        onChange={(v) => (v === NEW ? addNew('project') : go({ organizationId: ws.organization?.id, projectId: Number(v) }, 'project'))}
      >
        {ws.project ? null : <option value="">No project</option>}
        {ws.projects.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
        <option value={NEW}>+ New project</option>
      </Switcher>
      {ws.project ? (
        <Switcher
          label="Application"
          testid="app-switcher"
          value={ws.application?.id ?? ''}
          onChange={(v) => (v === NEW ? addNew('application') : go({ organizationId: ws.organization?.id, projectId: ws.project?.id, applicationId: v ? Number(v) : 'all' }, 'application'))}
        >
          <option value="">All applications</option>
          {ws.applications.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          <option value={NEW}>+ New application</option>
        </Switcher>
      ) : null}
    </div>
  );
}

interface SwitcherProps {
  label: string;
  testid: string;
  value: number | string | undefined;
  onChange(value: string): void;
  children: ReactNode;
}

function Switcher({ label, testid, value, onChange, children }: SwitcherProps) {
  const id = useId();
  return (
    <span className="switcher">
      <label htmlFor={id}>{label}</label>
      <select id={id} data-testid={testid} value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
        {children}
      </select>
    </span>
  );
}
