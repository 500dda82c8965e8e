import { href } from '../router';
import { useWorkspace } from '../workspace';
import { EmptyState, ErrorBanner, Loading } from './Feedback';

/**
 * What a page that reads one project's data shows while there is no project to read: the workspace still loading,
 * why it failed to load, or where to create one. `what` names the page's data ("Traces", "Logs").
 */
export function NoProject({ what }: { what: string }) {
  const ws = useWorkspace();
  if (!ws.loaded) return <Loading what="your projects" />;
  if (ws.error) return <ErrorBanner error={ws.error} onRetry={() => void ws.refresh().catch(() => undefined)} />;
  return (
    <EmptyState title="No project yet">
      <p data-testid="no-project">
        {what} belong to a project. <a href={href('/setup')}>Create or choose a project</a> to start.
      </p>
    </EmptyState>
  );
}
