import { useState, type ReactNode } from 'react';
import { ErrorBanner } from './Feedback';

export interface ConfirmActionProps {
  /** The first button's text ("Delete"), and what the confirmation group is read as by a screen reader. */
  label: string;
  ariaLabel: string;
  /** The question shown beside the confirming button. */
  question: ReactNode;
  /** The confirming button's text, and its text while the action runs. */
  confirm: string;
  busy: string;
  /** Test ids: the first button, the confirming one, the cancelling one. */
  testids: { start: string; confirm: string; cancel: string };
  /** Does the thing; a rejection is shown under the buttons (the API's message) and the buttons come back. */
  action(): Promise<void>;
  /**
   * After the action: true when the parent is about to remove this row (the buttons stay busy until it does),
   * false to come back to the first button.
   */
  staysBusy?: boolean;
}

/** An action behind an inline "Are you sure?": the first button, then the question with Yes and Cancel. */
export function ConfirmAction({ label, ariaLabel, question, confirm, busy: busyText, testids, action, staysBusy }: ConfirmActionProps) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      if (staysBusy) return;
      setConfirming(false);
    } catch (e) {
      setError(e);
    }
    setBusy(false);
  };
  return (
    <>
      {confirming ? (
        <span className="confirm" role="group" aria-label={ariaLabel}>
          <span>{question}</span>
          <button type="button" className="danger" data-testid={testids.confirm} disabled={busy} onClick={() => void run()}>
            {busy ? busyText : confirm}
          </button>
          <button type="button" data-testid={testids.cancel} disabled={busy} onClick={() => setConfirming(false)}>Cancel</button>
        </span>
      ) : (
        <button type="button" data-testid={testids.start} onClick={() => setConfirming(true)}>{label}</button>
      )}
      <ErrorBanner error={error} />
    </>
  );
}
