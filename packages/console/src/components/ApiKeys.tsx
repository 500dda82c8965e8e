// One application's API keys: create one (name optional), the new key shown once, the list (never the key itself,
// only its prefix) and revocation with an inline confirmation.
//
// data-testid:
//   app-card        one application's section (data-app-id = its id)
//   key-name        input of the new key's optional name;  create-key  the "Create API key" button
//   key-row         a row of the key list (data-key-id; data-revoked="true" once revoked)
//   revoke-key      the row's "Revoke" button;  confirm-revoke / cancel-revoke  the confirmation's buttons
//   (the new key's box: see NewKeyBox.tsx)
import { useEffect, useRef, useState } from 'react';
import * as client from '../api/client';
import type { ApiKey, Application } from '../api/types';
import { useAsync } from '../use-async';
import { ErrorBanner, Loading } from './Feedback';
import { ConfirmAction } from './ConfirmAction';
import { NameForm } from './NameForm';
import { NewKeyBox } from './NewKeyBox';
import { useTimePrefs } from '../time-prefs';

/** The list answers revoked keys too, with the time of revocation (null while the key works). */
type KeyRow = ApiKey & { revokedAt?: string | null };

export function ApplicationKeys({ app, highlight }: { app: Application; highlight?: boolean }) {
  const keys = useAsync(() => client.listApiKeys(app.id) as Promise<KeyRow[]>, [app.id]);
  const [created, setCreated] = useState<{ key: string; name: string }>();
  const card = useRef<HTMLElement>(null);
  useEffect(() => {
    if (highlight) card.current?.scrollIntoView({ block: 'start' });
  }, [highlight]);

  return (
    <section ref={card} className={highlight ? 'app-card panel highlight' : 'app-card panel'} data-testid="app-card" data-app-id={app.id}>
      <header className="app-card-head">
        <h2>{app.name}</h2>
        <span className="muted">application #{app.id}</span>
      </header>
      <CreateKeyForm appId={app.id} autoFocus={highlight} onCreated={(k) => { setCreated({ key: k.key, name: k.name }); keys.reload(); }} />
      {created ? <NewKeyBox apiKey={created.key} keyName={created.name} applicationName={app.name} onDismiss={() => setCreated(undefined)} /> : null}
      <ErrorBanner error={keys.error} onRetry={keys.reload} />
      {keys.loading && !keys.data ? <Loading what="API keys" /> : null}
      {keys.data ? <KeyTable keys={keys.data} onRevoked={keys.reload} /> : null}
    </section>
  );
}

function CreateKeyForm({ appId, autoFocus, onCreated }: { appId: number; autoFocus?: boolean; onCreated(key: ApiKey & { key: string }): void }) {
  return (
    <NameForm
      inline
      optional
      autoFocus={autoFocus}
      testid={{ form: 'create-key-form', name: 'key-name', submit: 'create-key' }}
      label="Key name (optional)"
      placeholder="production"
      action="Create API key"
      onSubmit={async (name) => onCreated(await client.createApiKey(appId, name || undefined))}
    />
  );
}

function KeyTable({ keys, onRevoked }: { keys: KeyRow[]; onRevoked(): void }) {
  if (!keys.length) return <p className="muted">No API key yet: create one to send traces and logs.</p>;
  return (
    <div className="table-scroll">
      <table className="table">
        <thead>
          <tr><th>Name</th><th>Key</th><th>Created</th><th>Status</th><th><span className="sr-only">Actions</span></th></tr>
        </thead>
        <tbody>
          {keys.map((k) => <KeyTableRow key={k.id} apiKey={k} onRevoked={onRevoked} />)}
        </tbody>
      </table>
    </div>
  );
}

function KeyTableRow({ apiKey, onRevoked }: { apiKey: KeyRow; onRevoked(): void }) {
  const { time } = useTimePrefs();
  const revoked = Boolean(apiKey.revokedAt);
  return (
    <tr data-testid="key-row" data-key-id={apiKey.id} data-revoked={revoked ? 'true' : undefined} className={revoked ? 'revoked' : undefined}>
      <td>{apiKey.name}</td>
      <td><code title="Only the beginning of the key is kept visible">{apiKey.prefix}…</code></td>
      <td title={apiKey.createdAt}>{time(apiKey.createdAt)}</td>
      <td>{revoked ? <span title={apiKey.revokedAt ?? undefined}>Revoked {time(apiKey.revokedAt)}</span> : 'Active'}</td>
      <td className="actions">
        {revoked ? null : (
          <ConfirmAction
            label="Revoke"
            ariaLabel={`Revoke ${apiKey.name}?`}
            question="Revoke? Apps using it stop sending within 5 s."
            confirm="Yes, revoke"
            busy="Revoking…"
            testids={{ start: 'revoke-key', confirm: 'confirm-revoke', cancel: 'cancel-revoke' }}
            action={async () => {
              await client.revokeApiKey(apiKey.id);
              onRevoked();
            }}
          />
        )}
      </td>
    </tr>
  );
}
