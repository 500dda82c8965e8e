// Applications of the selected project and their API keys (#/applications; `?app=<id>` brings one forward).
//
// data-testid:
//   applications-page   the page
//   create-app-form     "New application" form; create-app-name its input, create-app-submit its button
//   app-card            one application with its keys (data-app-id); inside it (components/ApiKeys.tsx):
//     key-name, create-key            optional key name and the "Create API key" button
//     new-key, new-key-value, copy-key, dismiss-key   the new key shown once (components/NewKeyBox.tsx)
//     sdk-snippet, curl-snippet, copy-sdk-snippet, copy-curl-snippet   setup snippets (components/Snippets.tsx)
//     key-row (data-key-id, data-revoked), revoke-key, confirm-revoke, cancel-revoke   the key list
import * as client from '../api/client';
import { ApplicationKeys } from '../components/ApiKeys';
import { EmptyState } from '../components/Feedback';
import { NameForm } from '../components/NameForm';
import { href, navigate, useRoute } from '../router';
import { useWorkspace } from '../workspace';

export function ApplicationsPage() {
  const ws = useWorkspace();
  const route = useRoute();
  const project = ws.project;
  if (!project) {
    return (
      <EmptyState title="No project selected">
        <p>Choose a project in the top bar, or <a href={href('/setup', { step: 'project' })}>create one</a>.</p>
      </EmptyState>
    );
  }
  const wanted = Number(route.params.get('app')) || ws.application?.id;
  const createApplication = async (name: string) => {
    const app = await client.createApplication(project.id, name);
    await ws.refresh();
    navigate('/applications', { app: app.id }, true);
  };

  return (
    <section className="applications-page" data-testid="applications-page">
      <header className="page-head">
        <h1>Applications <span className="muted">of {project.name}</span></h1>
        <NameForm
          inline
          testid="create-app"
          label="New application"
          placeholder="api"
          action="Create application"
          onSubmit={createApplication}
        />
      </header>
      <p className="muted">
        Each service that sends traces and logs is an application with its own API keys. A key is shown once, when it is
        created; the list shows only its first characters.
      </p>
      {ws.applications.length ? (
        ws.applications.map((app) => <ApplicationKeys key={app.id} app={app} highlight={app.id === wanted} />)
      ) : (
        <EmptyState title="No application yet">
          <p>Create the first application of {project.name} above, then an API key for it.</p>
        </EmptyState>
      )}
    </section>
  );
}
