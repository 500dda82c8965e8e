// Onboarding: organization → project → application on one page, then the Applications page to create a key.
// The Shell shows this page by itself while the workspace lacks what a page needs (setupNeeded below);
// `#/setup?step=organization|project|application` opens one step on purpose (the switchers' "+ New" entries).
//
// data-testid:
//   setup-page          the page
//   setup-steps         the list of the four steps (each <li> has data-state="done|current|todo")
//   setup-org-form      "Create your organization" form; setup-org-name its input, setup-org-submit its button
//   setup-project-form  "Create a project" form; setup-project-name, setup-project-submit
//   setup-app-form      "Create an application" form; setup-app-name, setup-app-submit
//   setup-done          shown when nothing is missing (links to Applications and the "+ New" steps)
import { useEffect, useState } from 'react';
import * as client from '../api/client';
import { ErrorBanner, Loading } from '../components/Feedback';
import { NameForm } from '../components/NameForm';
import { href, navigate, useRoute } from '../router';
import { useWorkspace, type Workspace } from '../workspace';

type Step = 'organization' | 'project' | 'application';
const STEPS: { step: Step | 'key'; label: string }[] = [
  { step: 'organization', label: 'Organization' },
  { step: 'project', label: 'Project' },
  { step: 'application', label: 'Application' },
  { step: 'key', label: 'API key' },
];

/** The step the workspace is missing, if any: no organization, no project in it, no application in the project. */
export function missingStep(ws: Pick<Workspace, 'organizations' | 'projects' | 'applications'>): Step | undefined {
  if (!ws.organizations.length) return 'organization';
  if (!ws.projects.length) return 'project';
  if (!ws.applications.length) return 'application';
  return undefined;
}

/**
 * Whether the Shell should show the setup page instead of the page at `path`: AI needs an organization, Applications
 * a project (it creates applications itself), the trace, log and metric pages an application to send data.
 */
export function setupNeeded(ws: Workspace, path: string): boolean {
  if (!ws.loaded) return false;
  const missing = missingStep(ws);
  if (!missing) return false;
  if (path.startsWith('/ai')) return missing === 'organization';
  if (path.startsWith('/applications')) return missing !== 'application';
  return true;
}

/** The step named in the URL, when the workspace has what it needs (a project needs an organization...). */
function askedStep(asked: string | null, ws: Workspace): Step | undefined {
  if (asked === 'organization') return asked;
  if (asked === 'project' && ws.organization) return asked;
  if (asked === 'application' && ws.project) return asked;
  return undefined;
}

export function SetupPage() {
  const ws = useWorkspace();
  const route = useRoute();
  const asked = route.params.get('step');
  // What we created and are waiting to see selected in the workspace (its read is asynchronous).
  const [pending, setPending] = useState<{ organizationId?: number; projectId?: number }>();

  const waiting = pending !== undefined
    && ((pending.organizationId !== undefined && ws.organization?.id !== pending.organizationId)
      || (pending.projectId !== undefined && ws.project?.id !== pending.projectId));
  useEffect(() => {
    if (pending && !waiting) setPending(undefined);
  }, [pending, waiting]);

  if (!ws.loaded) return <Loading what="your workspace" />;
  if (ws.error && !ws.organizations.length) {
    return <ErrorBanner error={ws.error} onRetry={() => void ws.refresh().catch(() => undefined)} />;
  }
  const step = askedStep(asked, ws) ?? missingStep(ws);

  const after = async (work: () => Promise<void>) => {
    await work();
    if (asked) navigate('/setup', undefined, true); // the asked step is done: continue with what is missing
  };
  const createOrganization = (name: string) => after(async () => {
    const org = await client.createOrganization(name);
    setPending({ organizationId: org.id });
    ws.selectOrganization(org.id);
  });
  const createProject = (name: string) => after(async () => {
    const project = await client.createProject(ws.organization!.id, name);
    setPending({ projectId: project.id });
    ws.selectProject(project.id);
  });
  const createApplication = (name: string) => after(async () => {
    const app = await client.createApplication(ws.project!.id, name);
    await ws.refresh();
    navigate('/applications', { app: app.id });
  });

  const current = step ?? 'key';
  const doneBefore = STEPS.findIndex((s) => s.step === current);
  return (
    <section className="setup-page" data-testid="setup-page">
      <h1>Set up Lantern</h1>
      <p className="muted">
        Traces and logs belong to an application, applications to a project, projects to an organization. An API key of
        the application lets your service send data.
      </p>
      <ol className="setup-steps" data-testid="setup-steps">
        {STEPS.map((s, i) => {
          const state = i < doneBefore ? 'done' : i === doneBefore ? 'current' : 'todo';
          return <li key={s.step} data-state={state} aria-current={state === 'current' ? 'step' : undefined}>{s.label}</li>;
        })}
      </ol>
      <ErrorBanner error={ws.error} />
      {waiting ? <Loading what="your workspace" /> : step === 'organization' ? (
        <NameForm
          testid="setup-org"
          title="Create your organization"
          hint="Your team or company. You can invite others to it later."
          label="Organization name"
          placeholder="Acme Inc."
          action="Create organization"
          onSubmit={createOrganization}
        />
      ) : step === 'project' ? (
        <NameForm
          testid="setup-project"
          title={`Create a project in ${ws.organization?.name ?? 'your organization'}`}
          hint="A product or system: its services' traces, logs and metrics are read together."
          label="Project name"
          placeholder="Web shop"
          action="Create project"
          onSubmit={createProject}
        />
      ) : step === 'application' ? (
        <NameForm
          testid="setup-app"
          title={`Create an application in ${ws.project?.name ?? 'your project'}`}
          hint="One service that sends data, for example your API server. Its API key comes next."
          label="Application name"
          placeholder="api"
          action="Create application"
          onSubmit={createApplication}
        />
      ) : (
        <div className="panel" data-testid="setup-done">
          <h2>Your workspace is ready</h2>
          <p>Create an API key for an application and send your first trace on the <a href={href('/applications')}>Applications</a> page.</p>
          <p className="muted">
            Add more: <a href={href('/setup', { step: 'organization' })}>organization</a>
            {' · '}<a href={href('/setup', { step: 'project' })}>project</a>
            {' · '}<a href={href('/setup', { step: 'application' })}>application</a>
          </p>
        </div>
      )}
    </section>
  );
}
