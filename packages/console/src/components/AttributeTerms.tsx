// Attribute terms of a search (the Traces and Logs pages): a text box whose term (`key=value`, or a key alone: the
// key is present) is added on Enter, and a removable chip per term; every term must hold (lib/attribute-terms.ts,
// docs/api.md "Attribute search"). A term the API would refuse is said, not added.
//
// data-testid: filter-attr (the input), attr-chip (data-term), attr-remove, filter-attr-error
import { useId, useState } from 'react';
import { MAX_TERMS, attributeTerm } from '../lib/attribute-terms';

/** The attribute terms: a text box (Enter adds its term) and a removable chip per term. */
export function AttributeTerms({ terms, onChange }: { terms: readonly string[]; onChange(terms: string[]): void }) {
  const id = useId();
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const add = () => {
    if (!text.trim()) return;
    const term = attributeTerm(text.trim());
    if (term === undefined) return setError('An attribute is key=value, or a key alone: a key of 1 or more characters, 400 characters at most.');
    if (terms.length >= MAX_TERMS && !terms.includes(term)) return setError(`At most ${MAX_TERMS} attributes at once.`);
    setError('');
    setText('');
    if (!terms.includes(term)) onChange([...terms, term]);
  };
  return (
    <span className="attr-terms">
      <label htmlFor={`${id}-attr`}>Attribute</label>
      <input id={`${id}-attr`} data-testid="filter-attr" type="search" placeholder="http.route=/cart or user.id" value={text} aria-invalid={Boolean(error)}
        aria-describedby={`${id}-attr-help`}
        onChange={(e) => { setText(e.target.value); setError(''); }} onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); add(); } }} />
      <span id={`${id}-attr-help`} className="sr-only">Enter adds it. key=value finds that value, a key alone any value; every attribute listed must hold.</span>
      {error ? <span className="form-error" role="alert" data-testid="filter-attr-error">{error}</span> : null}
      {terms.map((term) => (
        <span key={term} className="chip" data-testid="attr-chip" data-term={term}>
          <code>{term}</code>
          <button type="button" className="chip-remove" data-testid="attr-remove" aria-label={`Remove the attribute ${term}`}
            onClick={() => onChange(terms.filter((t) => t !== term))}>×</button>
        </span>
      ))}
    </span>
  );
}

