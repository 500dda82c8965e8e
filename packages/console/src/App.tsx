import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import * as client from './api/client';
import type { User } from './api/types';
import { ErrorBoundary } from './components/ErrorBoundary';
import { ErrorBanner, Loading } from './components/Feedback';
import { Switchers } from './components/Switchers';
import { AiPage } from './pages/Ai';
import { ComparePage } from './pages/Compare';
import { ApplicationsPage } from './pages/Applications';
import { LogsPage } from './pages/Logs';
import { MetricsPage } from './pages/Metrics';
import { SetupPage, setupNeeded } from './pages/Setup';
import { SignInPage, SignUpPage } from './pages/SignIn';
import { TracesPage } from './pages/Traces';
import { TraceViewPage } from './pages/TraceView';
import { isScopedPath, parseScope, scopeMissing, scopeParams, type ViewScope } from './lib/view-scope';
import { hrefInScope, navigate, useRoute, type Route } from './router';
import { ThemeSwitch } from './theme';
import { TimePrefsProvider, ZoneSwitch } from './time-prefs';
import { getToken, onTokenChange, setToken } from './session';
import { useWorkspace, WorkspaceProvider, type Workspace } from './workspace';

/**
 * The Service map and its layout library (dagre, about 17 KB gzipped) load when the page is first opened: the other
 * pages' first load does not carry them.
 */
const ServiceMapPage = lazy(() => import('./pages/ServiceMap').then((m) => ({ default: m.ServiceMapPage })));

/** Each page of the top bar: its path, its label, and a shorter one for a phone (so the bar keeps three lines). */
const NAV: ReadonlyArray<readonly [string, string, string?]> = [
  ['/traces', 'Traces'],
  ['/logs', 'Logs'],
  ['/metrics', 'Metrics'],
  ['/map', 'Service map', 'Map'],
  ['/applications', 'Applications'],
  ['/ai', 'AI'],
];

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
      <TimePrefsProvider>
        <Shell />
      </TimePrefsProvider>
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
        <a className="brand" href={hrefInScope('/traces', route.params)}>Lantern</a>
        <nav>
          {NAV.map(([path, label, short]) => (
            <a key={path} href={hrefInScope(path, route.params)} className={route.path.startsWith(path) || (path === '/traces' && route.path === '/compare') ? 'active' : undefined}>
              {short ? <><span className="nav-long">{label}</span><span className="nav-short">{short}</span></> : label}
            </a>
          ))}
        </nav>
        <Switchers />
        <ZoneSwitch />
        <ThemeSwitch />
        <span className="user" title={ws.user.email}>{ws.user.name}</span>
        <button type="button" className="link" data-testid="sign-out" onClick={signOut}>Sign out</button>
      </header>
      <main className="page">
        <ErrorBoundary key={route.path}>
          <ScopeOfLink route={route} ws={ws}>{pageFor(route, ws)}</ScopeOfLink>
        </ErrorBoundary>
      </main>
    </div>
  );
}

/** The scope of the workspace as a URL carries it: every application of a project is `all`. */
function workspaceScope(ws: Workspace): ViewScope {
  return {
    organizationId: ws.organization?.id,
    projectId: ws.project?.id,
    applicationId: ws.application?.id ?? (ws.project ? 'all' : undefined),
  };
}

/**
 * The URL is the view: its organization, project and application (lib/view-scope.ts) lead, and the workspace
 * follows them. A link to a project switches to it first, or says that the project is not visible to this user;
 * the top bar's switchers change the URL (a history entry), and this then switches the workspace. A URL without
 * a scope (a nav link, an old bookmark) gets the workspace's written in, in place.
 */
function ScopeOfLink({ route, ws, children }: { route: Route; ws: Workspace; children: ReactNode }) {
  const url = parseScope(route.params);
  const wanted = url.projectId;
  const wantedOrg = wanted === undefined ? url.organizationId : undefined;
  const link = wanted ? `${route.path}?${route.params.toString()}` : '';
  const [missing, setMissing] = useState<{ link: string; error?: unknown; projectId?: number }>();
  const [attempt, setAttempt] = useState(0);
  const asked = useRef('');
  const arrived = useRef('');
  const { loaded, project, organization, application, applications, showProject, error: workspaceError } = ws;
  const scoped = isScopedPath(route.path);
  const followWorkspace = () => navigate(route.path, { ...Object.fromEntries(route.params), ...scopeParams(workspaceScope(ws)) }, true);
  const orgMissing = wantedOrg !== undefined && loaded && !ws.organizations.some((o) => o.id === wantedOrg);
  useEffect(() => {
    if (!wanted) {
      // The same link opened again later is a new request to switch.
      asked.current = arrived.current = '';
    }
    if (!loaded || workspaceError || !scoped) return;
    if (wanted) {
      if (project?.id === wanted) {
        arrived.current = link;
      } else if (arrived.current === link || (missing?.link === link && project?.id !== missing.projectId)) {
        // The workspace moved on by itself (a project created on the setup page): the URL follows it.
        return followWorkspace();
      } else {
        if (asked.current !== link) {
          asked.current = link;
          const from = project?.id;
          showProject(wanted).then(
            (found) => {
              // Another choice came first while this one looked: it selected nothing; the link asks again if opened again.
              if (found === undefined) {
                if (asked.current === link) asked.current = '';
                return;
              }
              if (!found) setMissing({ link, projectId: from });
            },
            (error: unknown) => setMissing({ link, error, projectId: from }),
          );
        }
        return;
      }
    } else if (wantedOrg !== undefined && organization?.id !== wantedOrg) {
      if (!orgMissing) ws.selectOrganization(wantedOrg);
      return;
    }
    const app = url.applicationId;
    if (typeof app === 'number' && application?.id !== app && applications.some((a) => a.id === app)) return ws.selectApplication(app);
    if (app === 'all' && application) return ws.selectApplication(undefined);
    const current = workspaceScope(ws);
    if (scopeMissing(url, current) || (url.organizationId !== undefined && current.organizationId !== undefined && url.organizationId !== current.organizationId)) {
      // Filled in place: an application the workspace does not know (another project's) stays as the URL has it.
      const known = typeof app !== 'number' || applications.some((a) => a.id === app);
      navigate(route.path, { ...Object.fromEntries(route.params), ...scopeParams({ ...current, ...(known ? {} : { applicationId: app }) }) }, true);
    }
    // showProject and the selectors change with every workspace render; the URL, the selection and a retry decide.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded, link, route.path, route.params, project?.id, organization?.id, application?.id, applications, workspaceError, attempt, scoped, orgMissing]);
  if (!scoped || !loaded) return <>{children}</>;
  if (orgMissing) return <ErrorBanner error={new Error(`This link is to organization ${wantedOrg}, which does not exist or is not yours.`)} />;
  if (!wanted || project?.id === wanted || arrived.current === link) return <>{children}</>;
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
  if (path === '/compare') return <ComparePage />;
  if (path === '/logs') return <LogsPage />;
  if (path === '/metrics') return <MetricsPage />;
  if (path === '/map') return <Suspense fallback={<Loading what="the service map" />}><ServiceMapPage /></Suspense>;
  if (path === '/applications') return <ApplicationsPage />;
  if (path === '/ai') return <AiPage />;
  return <TracesPage />;
}
