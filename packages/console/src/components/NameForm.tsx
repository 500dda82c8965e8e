import { useId, useState, type FormEvent } from 'react';
import { ErrorBanner } from './Feedback';

export interface NameFormProps {
  /** Prefix of the test ids: `<testid>-form`, `<testid>-name` (the input), `<testid>-submit` (the button). */
  testid: string;
  title?: string;
  hint?: string;
  label: string;
  placeholder?: string;
  /** The submit button's text. */
  action: string;
  /** Creates the thing; a rejection is shown in the form (the API's message) and the name is kept. */
  onSubmit(name: string): Promise<unknown>;
  /** One line (input and button side by side), without a panel around it. */
  inline?: boolean;
}

/** A form that creates something from a name: organizations, projects, applications, AI tenants. */
export function NameForm({ testid, title, hint, label, placeholder, action, onSubmit, inline }: NameFormProps) {
  const id = useId();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit(trimmed);
      setName('');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className={inline ? 'name-form inline' : 'name-form panel'} data-testid={`${testid}-form`} onSubmit={(e) => void submit(e)}>
      {title ? <h2>{title}</h2> : null}
      {hint ? <p className="muted">{hint}</p> : null}
      <div className="field-row">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          data-testid={`${testid}-name`}
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder={placeholder}
          maxLength={200}
          required
          autoFocus={!inline}
        />
        <button type="submit" className="primary" data-testid={`${testid}-submit`} disabled={busy || !name.trim()}>
          {busy ? 'Creating…' : action}
        </button>
      </div>
      <ErrorBanner error={error} />
    </form>
  );
}
