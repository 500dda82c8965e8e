// Search of a tenant's ready documents (POST /ai/search): each passage with its file, page (PDF) and score, the
// query's words highlighted from the API's offsets, rendered as text and <mark> (never HTML).
//
// data-testid:
//   doc-search          the form (role="search");  doc-search-input  its input;  doc-search-submit  its button
//   search-results      the results (data-query = the query answered)
//   search-result       one passage (data-doc-id, data-filename, data-page when known)
//   result-file, result-page, result-score, result-passage   its parts;  result-expand  "Show whole passage"
//   search-summary      how many passages were found (role="status");  no-results  in it when nothing matched
import { Fragment, useEffect, useId, useRef, useState } from 'react';
import * as client from '../api/client';
import type { SearchAnswer, SearchHit } from '../api/types';
import { formatScore, pageLabel } from '../lib/documents';
import { passageExcerpt, passageSegments, type Segment } from '../lib/passage';
import { ErrorBanner } from './Feedback';

/** Passages asked for per search. */
const LIMIT = 10;

export interface DocumentSearchProps {
  tenantId: string;
  /** Documents deleted since the search: their passages leave the results at once. */
  deleted: ReadonlySet<string>;
}

export function DocumentSearch({ tenantId, deleted }: DocumentSearchProps) {
  const inputId = useId();
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<SearchAnswer>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const inFlight = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => inFlight.current?.abort(), []);

  const search = async () => {
    const text = query.trim();
    if (!text) return;
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    setBusy(true);
    setError(undefined);
    try {
      const found = await client.searchDocuments(tenantId, text, LIMIT, controller.signal);
      if (!controller.signal.aborted) setAnswer(found);
    } catch (e) {
      if (!controller.signal.aborted) setError(e);
    }
    if (!controller.signal.aborted) setBusy(false);
  };

  const results = answer?.results.filter((r) => !deleted.has(r.documentId)) ?? [];
  return (
    <section className="doc-search" aria-label="Search the documents">
      <form className="search-form" role="search" data-testid="doc-search" onSubmit={(e) => { e.preventDefault(); void search(); }}>
        <label htmlFor={inputId}>Search the ready documents</label>
        <div className="field-row">
          <input
            id={inputId}
            type="search"
            data-testid="doc-search-input"
            value={query}
            maxLength={1000}
            placeholder="e.g. rollback checkout"
            onChange={(e) => setQuery(e.target.value)}
          />
          <button type="submit" className="primary" data-testid="doc-search-submit" disabled={busy || !query.trim()}>
            {busy ? 'Searching…' : 'Search'}
          </button>
        </div>
      </form>
      <ErrorBanner error={error} />
      {answer && !error ? (
        <>
          <p className="muted search-summary" role="status" data-testid="search-summary">
            {results.length
              ? `${results.length} passage${results.length === 1 ? '' : 's'} for “${answer.query}”, best first`
              : <span data-testid="no-results">No passage of a ready document holds “{answer.query}”.</span>}
          </p>
          {results.length ? (
            <ol className="search-results" data-testid="search-results" data-query={answer.query}>
              {results.map((r) => <SearchResult key={`${r.documentId}:${r.chunkIndex}`} hit={r} />)}
            </ol>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

function Segments({ segments }: { segments: Segment[] }) {
  return <>{segments.map((s, i) => (s.mark ? <mark key={i}>{s.text}</mark> : <Fragment key={i}>{s.text}</Fragment>))}</>;
}

function SearchResult({ hit }: { hit: SearchHit }) {
  const [whole, setWhole] = useState(false);
  const excerpt = passageExcerpt(hit.text, hit.highlights);
  const page = pageLabel(hit);
  const cut = excerpt.cutBefore || excerpt.cutAfter;
  return (
    <li className="search-result" data-testid="search-result" data-doc-id={hit.documentId} data-filename={hit.filename} data-page={hit.page}>
      <div className="result-head">
        <span className="filename" data-testid="result-file">{hit.filename}</span>
        {page ? <span className="muted" data-testid="result-page">{page}</span> : null}
        <span className="muted result-score" data-testid="result-score" title="Relative to the best result (1.00)">score {formatScore(hit.score)}</span>
      </div>
      <blockquote className="passage" data-testid="result-passage">
        {whole ? <Segments segments={passageSegments(hit.text, hit.highlights)} /> : (
          <>
            {excerpt.cutBefore ? '… ' : null}
            <Segments segments={excerpt.segments} />
            {excerpt.cutAfter ? ' …' : null}
          </>
        )}
      </blockquote>
      {cut ? (
        <button type="button" className="link" data-testid="result-expand" aria-expanded={whole} onClick={() => setWhole((w) => !w)}>
          {whole ? 'Show less' : 'Show whole passage'}
        </button>
      ) : null}
    </li>
  );
}
