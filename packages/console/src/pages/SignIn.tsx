// Sign in and sign up: the pages a visitor without a session sees (#/signin, #/signup).
// On success the JWT goes to the session (localStorage) and the console opens #/traces; a new user is then led
// through the setup (organization, project, application).
//
// data-testid:
//   signin-form, signin-email, signin-password, signin-submit   the sign-in form, its inputs and button
//   signup-form, signup-email, signup-password, signup-name, signup-submit   the sign-up form (name optional)
//   auth-error      the error banner's container (the API's message: 401 wrong pair, 409 email taken...)
//   goto-signup     link from sign in to sign up;  goto-signin  link from sign up to sign in
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import * as client from '../api/client';
import { ErrorBanner } from '../components/Feedback';
import { MIN_PASSWORD_LENGTH, signUpProblem } from '../lib/form-rules';
import { href, navigate, parseHash } from '../router';
import { setToken } from '../session';

function useSubmit(send: () => Promise<client.SessionAnswer>, check?: () => string | undefined) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const problem = check?.();
    if (problem) {
      setError(new Error(problem));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const answer = await send();
      setToken(answer.token);
      // A link opened while signed out (a shared trace, or a session that expired) opens once signed in.
      const { path } = parseHash(location.hash);
      if (path === '/' || path === '/signin' || path === '/signup') navigate('/traces', undefined, true);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return { busy, error, onSubmit: (e: FormEvent) => void submit(e) };
}

export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, onSubmit } = useSubmit(() => client.login(email.trim(), password));
  return (
    <AuthLayout title="Sign in to Lantern" error={error}>
      <form className="auth-form" data-testid="signin-form" onSubmit={onSubmit}>
        <Field label="Email" testid="signin-email" type="email" value={email} onChange={setEmail} autoComplete="username" autoFocus />
        <Field label="Password" testid="signin-password" type="password" value={password} onChange={setPassword} autoComplete="current-password" />
        <button type="submit" className="primary" data-testid="signin-submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
      <p className="auth-switch">New to Lantern? <a href={href('/signup')} data-testid="goto-signup">Create an account</a></p>
    </AuthLayout>
  );
}

export function SignUpPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const { busy, error, onSubmit } = useSubmit(
    () => client.register(email.trim(), password, name.trim() || undefined),
    () => signUpProblem(email, password),
  );
  return (
    <AuthLayout title="Create your Lantern account" error={error}>
      <form className="auth-form" data-testid="signup-form" onSubmit={onSubmit} noValidate>
        <Field label="Email" testid="signup-email" type="email" value={email} onChange={setEmail} autoComplete="email" autoFocus />
        <Field
          label="Password"
          hint={`At least ${MIN_PASSWORD_LENGTH} characters`}
          testid="signup-password"
          type="password"
          value={password}
          onChange={setPassword}
          autoComplete="new-password"
        />
        <Field label="Name" hint="Optional" testid="signup-name" value={name} onChange={setName} autoComplete="name" optional />
        <button type="submit" className="primary" data-testid="signup-submit" disabled={busy}>{busy ? 'Creating account…' : 'Create account'}</button>
      </form>
      <p className="auth-switch">Already have an account? <a href={href('/signin')} data-testid="goto-signin">Sign in</a></p>
    </AuthLayout>
  );
}

function AuthLayout({ title, error, children }: { title: string; error: unknown; children: ReactNode }) {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <div className="brand auth-brand">Lantern</div>
        <h1>{title}</h1>
        <div data-testid="auth-error"><ErrorBanner error={error} /></div>
        {children}
      </div>
    </main>
  );
}

interface FieldProps {
  label: string;
  hint?: string;
  testid: string;
  type?: string;
  value: string;
  onChange(value: string): void;
  autoComplete?: string;
  autoFocus?: boolean;
  optional?: boolean;
}

function Field({ label, hint, testid, type = 'text', value, onChange, autoComplete, autoFocus, optional }: FieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {hint ? <span className="muted"> ({hint})</span> : null}
      </label>
      <input
        id={id}
        data-testid={testid}
        type={type}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        autoComplete={autoComplete}
        autoFocus={autoFocus}
        required={!optional}
      />
    </div>
  );
}
