// The Logs page's "Top values": for `service.name` and the keys the reader adds (`facet=` in the URL), the most
// frequent values among the newest logs that match the filters (GET /logs/facets, at most 10,000 logs: a sample, as
// Kibana's field statistics; the level and application counts beside the filters are exact). A value adds its
// `key=value` to the attribute filters; a key added can be taken away.
//
// data-testid: log-facets (data-sampled, data-complete), facet (data-key), facet-value (data-term), facet-remove,
// facet-add (the input), facet-note
import { useId, useState } from 'react';
import type { LogFacets as Facets } from '../api/types';
import { attributeTerm } from '../lib/attribute-terms';
import { formatCount } from '../lib/format';

/** Always shown: the service, as the peers show it first. */
export const DEFAULT_FACETS = ['service.name'];

export function LogFacets({ data, chosen, onChoose, onPick }: {
  data: Facets;
  /** The keys the reader added (besides DEFAULT_FACETS). */
  chosen: readonly string[];
  onChoose(keys: string[]): void;
  /** A value picked: its term (`key=value`). */
  onPick(term: string): void;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const add = () => {
    const key = text.trim();
    if (!key || key.length > 200 || chosen.includes(key) || DEFAULT_FACETS.includes(key)) return setText('');
    setText('');
    onChoose([...chosen, key].slice(0, 7));
  };
  return (
    <section className="log-facets" data-testid="log-facets" data-sampled={data.sampled} data-complete={String(data.complete)} aria-label="Top values">
      {data.facets.map((facet) => {
        const seen = facet.values.reduce((n, v) => n + v.count, 0) + facet.others;
        return (
          <div key={facet.key} className="facet" data-testid="facet" data-key={facet.key}>
            <h3>
              <code>{facet.key}</code>
              {chosen.includes(facet.key) ? (
                <button type="button" className="chip-remove" data-testid="facet-remove" aria-label={`Stop counting ${facet.key}`}
                  onClick={() => onChoose(chosen.filter((k) => k !== facet.key))}>×</button>
              ) : null}
            </h3>
            {facet.values.length === 0 ? <p className="muted">No log read has it.</p> : (
              <ul>
                {facet.values.map((v) => {
                  const term = attributeTerm(`${facet.key}=${v.value}`);
                  return (
                    <li key={v.value}>
                      <button type="button" className="facet-value" data-testid="facet-value" data-term={term} disabled={term === undefined}
                        title={`Only the logs with ${facet.key} = ${v.value}`} onClick={() => term && onPick(term)}>
                        <span className="facet-bar" style={{ width: `${Math.round((v.count / Math.max(1, seen)) * 100)}%` }} aria-hidden="true" />
                        <span className="facet-label">{v.value === '' ? '(empty)' : v.value}</span>
                        <span className="facet-count">{formatCount(v.count, true)}</span>
                      </button>
                    </li>
                  );
                })}
              </ul>
            )}
            {facet.others ? <p className="muted">{formatCount(facet.others, true)} other</p> : null}
          </div>
        );
      })}
      <div className="facet facet-add">
        <label htmlFor={`${id}-facet`}>Count a field</label>
        <input id={`${id}-facet`} data-testid="facet-add" type="search" placeholder="tenant, http.route…" value={text}
          onChange={(e) => setText(e.target.value)} onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); add(); } }} />
      </div>
      <p className="muted facet-note" data-testid="facet-note">
        {data.complete ? `Counted over all ${formatCount(data.sampled, true)} logs that match.` : `Counted over the newest ${formatCount(data.sampled, true)} logs that match.`}
      </p>
    </section>
  );
}
