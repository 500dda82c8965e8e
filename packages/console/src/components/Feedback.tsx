import type { ReactNode } from 'react';
import { messageOf } from '../api/errors';

/** An API failure shown as the message of the contract's error body; never a blank page. */
export function ErrorBanner({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  return (
    <div className="error-banner" role="alert">
      <span>{messageOf(error)}</span>
      {onRetry ? <button type="button" onClick={onRetry}>Try again</button> : null}
    </div>
  );
}

/** What a page shows when it has nothing yet, and what to do next. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <section className="empty-state">
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return <p className="loading" aria-busy="true">Loading {what}…</p>;
}
