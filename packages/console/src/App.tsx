import { useEffect, useRef, useState, type ReactNode } from 'react';
import * as client from './api/client';
import type { User } from './api/types';
import { ErrorBoundary } from './components/ErrorBoundary';
import { ErrorBanner, Loading } from './components/Feedback';
import { Switchers } from './components/Switchers';
import { AiPage } from './pages/Ai';
import { ApplicationsPage } from './pages/Applications';
import { LogsPage } from './pages/Logs';
import { MetricsPage } from './pages/Metrics';
import { SetupPage, setupNeeded } from './pages/Setup';
import { SignInPage, SignUpPage } from './pages/SignIn';
import { TracesPage } from './pages/Traces';
import { TraceViewPage } from './pages/TraceView';
import { href, navigate, useRoute, type Route } from './router';
import { getToken, onTokenChange, setToken } from './session';
import { useWorkspace, WorkspaceProvider, type Workspace } from './workspace';

const NAV = [
  ['/traces', 'Traces'],
  ['/logs', 'Logs'],
  ['/metrics', 'Metrics'],
  ['/applications', 'Applications'],
  ['/ai', 'AI'],
] as const;

export function App() {
  const [token, setTokenState] = useState(getToken);
  useEffect(() => onTokenChange(setTokenState), []);
  const route = useRoute();
  if (!token) return route.path === '/signup' ? <SignUpPage /> : <SignInPage />;
  return <SignedIn key={token} />;
}

function SignedIn() {
  const [user, setUser] = useState<User>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    client.me().then((m) => setUser(m.user), setError);
  }, []);
  if (error) return <main className="page"><ErrorBanner error={error} onRetry={() => location.reload()} /></main>;
  if (!user) return <main className="page"><Loading what="your account" /></main>;
  return (
    <WorkspaceProvider user={user}>
      <Shell />
    </WorkspaceProvider>
  );
}

function Shell() {
  const route = useRoute();
  const ws = useWorkspace();
  // The server revokes the token (POST /auth/logout) before it is dropped here; when that fails (offline, already
  // expired) the token is dropped all the same, and it lapses at its expiry.
  const signOut = () => {
    void client.logout().catch(() => undefined).finally(() => {
      setToken(null);
      navigate('/signin', undefined, true);
    });
  };
  return (
    <div className="shell">
      <header className="topbar">
        <a className="brand" href={href('/traces')}>Lantern</a>
        <nav>
          {NAV.map(([path, label]) => (
            <a key={path} href={href(path)} className={route.path.startsWith(path) ? 'active' : undefined}>{label}</a>
          ))}
        </nav>
        <Switchers />
        <span className="user" title={ws.user.email}>{ws.user.name}</span>
        <button type="button" className="link" data-testid="sign-out" onClick={signOut}>Sign out</button>
      </header>
      <main className="page">
        <ErrorBoundary key={route.path}>
          <ProjectOfLink route={route} ws={ws}>{pageFor(route, ws)}</ProjectOfLink>
        </ErrorBoundary>
      </main>
    </div>
  );
}

/**
 * A link that names a project (`?project=<id>`, as trace links do) opens in that project: the workspace switches to
 * it first, or says that the project is not visible to this user. Once there (or once told it is not visible),
 * choosing another project in the top bar drops the parameter instead of switching back.
 */
function ProjectOfLink({ route, ws, children }: { route: Route; ws: Workspace; children: ReactNode }) {
  const wanted = Number(route.params.get('project')) || undefined;
  const link = wanted ? `${route.path}?${route.params.toString()}` : '';
  const [missing, setMissing] = useState<{ link: string; error?: unknown; projectId?: number }>();
  const [attempt, setAttempt] = useState(0);
  const asked = useRef('');
  const arrived = useRef('');
  const { loaded, project, showProject, error: workspaceError } = ws;
  const dropParameter = () => navigate(route.path, Object.fromEntries([...route.params].filter(([k]) => k !== 'project')), true);
  useEffect(() => {
    if (!wanted) {
      // The same link opened again later is a new request to switch.
      asked.current = arrived.current = '';
      return;
    }
    if (!loaded || workspaceError) return;
    if (project?.id === wanted) {
      arrived.current = link;
    } else if (arrived.current === link || (missing?.link === link && project?.id !== missing.projectId)) {
      dropParameter();
    } else if (asked.current !== link) {
      asked.current = link;
      const from = project?.id;
      showProject(wanted).then(
        (found) => { if (!found) setMissing({ link, projectId: from }); },
        (error: unknown) => setMissing({ link, error, projectId: from }),
      );
    }
    // showProject changes with every workspace render; the link, the project and a retry decide.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded, wanted, link, project?.id, workspaceError, attempt]);
  if (!wanted || !loaded || project?.id === wanted || arrived.current === link) return <>{children}</>;
  if (workspaceError) return <ErrorBanner error={workspaceError} onRetry={() => void ws.refresh().catch(() => undefined)} />;
  if (missing?.link !== link) return <Loading what="the linked project" />;
  if (missing.error) {
    const retry = () => {
      asked.current = '';
      setMissing(undefined);
      setAttempt((n) => n + 1);
    };
    return <ErrorBanner error={missing.error} onRetry={retry} />;
  }
  return <ErrorBanner error={new Error(`This link is to project ${wanted}, which does not exist or is not in your organizations.`)} />;
}

function pageFor(route: Route, ws: Workspace) {
  const { path } = route;
  if (!ws.loaded) return <Loading what="your workspace" />;
  if (path === '/setup' || setupNeeded(ws, path)) return <SetupPage />;
  if (path.startsWith('/traces/')) return <TraceViewPage />;
  if (path === '/logs') return <LogsPage />;
  if (path === '/metrics') return <MetricsPage />;
  if (path === '/applications') return <ApplicationsPage />;
  if (path === '/ai') return <AiPage />;
  return <TracesPage />;
}
