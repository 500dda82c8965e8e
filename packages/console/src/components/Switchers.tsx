// The top bar's organization, project and application switchers. Each select ends with a "+ New …" entry that
// opens that step of the setup page (#/setup?step=...).
//
// data-testid:
//   switchers        the group of selects
//   org-switcher     <select> of the organizations ("+ New organization" has value "new")
//   project-switcher <select> of the organization's projects ("+ New project" has value "new")
//   app-switcher     <select> of the project's applications: "" = All applications, "new" = "+ New application"
import { useId, type ReactNode } from 'react';
import { navigate } from '../router';
import { useWorkspace } from '../workspace';

const NEW = 'new';

export function Switchers() {
  const ws = useWorkspace();
  if (!ws.loaded || !ws.organizations.length) return null;
  const addNew = (step: string) => navigate('/setup', { step });

  return (
    <div className="switchers" data-testid="switchers">
      <Switcher
        label="Organization"
        testid="org-switcher"
        value={ws.organization?.id}
        onChange={(v) => (v === NEW ? addNew('organization') : ws.selectOrganization(Number(v)))}
      >
        {ws.organizations.map((o) => <option key={o.id} value={o.id}>{o.name}</option>)}
        <option value={NEW}>+ New organization</option>
      </Switcher>
      <Switcher
        label="Project"
        testid="project-switcher"
        value={ws.project?.id}
        onChange={(v) => (v === NEW ? addNew('project') : ws.selectProject(Number(v)))}
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
          onChange={(v) => (v === NEW ? addNew('application') : ws.selectApplication(v ? Number(v) : undefined))}
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
