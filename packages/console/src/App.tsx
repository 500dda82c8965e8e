import { useEffect, useState } from 'react';
import * as client from './api/client';
import type { User } from './api/types';
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
  const signOut = () => {
    setToken(null);
    navigate('/signin', undefined, true);
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
      <main className="page">{pageFor(route, ws)}</main>
    </div>
  );
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
