import { useId, useState, type FormEvent } from 'react';
import { ErrorBanner } from './Feedback';

export interface NameFormProps {
  /**
   * The test ids: a prefix (`<testid>-form`, `<testid>-name` for the input, `<testid>-submit` for the button), or
   * each given.
   */
  testid: string | { form: string; name: string; submit: string };
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
  /** The name may be left empty (the API names it); `onSubmit` then gets ''. */
  optional?: boolean;
  autoFocus?: boolean;
}

/** A form that creates something from a name: organizations, projects, applications, AI tenants. */
export function NameForm({ testid, title, hint, label, placeholder, action, onSubmit, inline, optional, autoFocus = !inline }: NameFormProps) {
  const id = useId();
  const ids = typeof testid === 'string' ? { form: `${testid}-form`, name: `${testid}-name`, submit: `${testid}-submit` } : testid;
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if ((!trimmed && !optional) || busy) return;
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
    <form className={inline ? 'name-form inline' : 'name-form panel'} data-testid={ids.form} onSubmit={(e) => void submit(e)}>
      {title ? <h2>{title}</h2> : null}
      {hint ? <p className="muted">{hint}</p> : null}
      <div className="field-row">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          data-testid={ids.name}
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder={placeholder}
          maxLength={200}
          required={!optional}
          autoFocus={autoFocus}
        />
        <button type="submit" className="primary" data-testid={ids.submit} disabled={busy || (!optional && !name.trim())}>
          {busy ? 'Creating…' : action}
        </button>
      </div>
      <ErrorBanner error={error} />
    </form>
  );
}
