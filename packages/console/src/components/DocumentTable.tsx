// A tenant's documents, newest first: status (and why a failure), pages and chunks, with Reprocess and a Delete
// behind an inline confirmation.
//
// data-testid:
//   doc-table       the table
//   doc-row         a document (data-doc-id, data-filename, data-status)
//   doc-status      its status badge;  doc-error  a failed one's reason (data-code = the API's error code)
//   doc-pages, doc-chunks   its pages (PDF) and chunks once ready
//   reprocess-doc   its "Reprocess" button (disabled while stored or processing)
//   delete-doc      its "Delete" button;  confirm-delete / cancel-delete  the confirmation's buttons
import { useState } from 'react';
import * as client from '../api/client';
import type { DocumentRecord } from '../api/types';
import { ApiError } from '../api/errors';
import { failureTitle, isPending } from '../lib/documents';
import { mediaType } from '../lib/form-rules';
import { formatBytes, formatCount } from '../lib/format';
import { ConfirmAction } from './ConfirmAction';
import { ErrorBanner } from './Feedback';
import { useTimePrefs } from '../time-prefs';

export interface DocumentTableProps {
  docs: DocumentRecord[];
  /** A reprocess's answer: the record back to `stored`. */
  onReprocessed(doc: DocumentRecord): void;
  onDeleted(id: string): void;
}

export function DocumentTable({ docs, onReprocessed, onDeleted }: DocumentTableProps) {
  if (!docs.length) return <p className="muted" data-testid="no-docs">No document yet: drop a file above or choose one.</p>;
  return (
    <div className="table-scroll">
      <table className="table" data-testid="doc-table">
        <thead>
          <tr>
            <th>File</th><th>Type</th><th className="num">Size</th><th>Status</th>
            <th className="num">Pages</th><th className="num">Chunks</th><th>Created</th><th><span className="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {docs.map((doc) => <DocumentRow key={doc.id} doc={doc} onReprocessed={onReprocessed} onDeleted={onDeleted} />)}
        </tbody>
      </table>
    </div>
  );
}

const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.status === 404;

const count = (n: number | undefined) =>
  (n === undefined ? <><span className="muted" aria-hidden="true">–</span><span className="sr-only">none</span></> : formatCount(n));

function DocumentRow({ doc, onReprocessed, onDeleted }: { doc: DocumentRecord } & Omit<DocumentTableProps, 'docs'>) {
  const { time } = useTimePrefs();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const pending = isPending(doc.status);
  const reprocess = async () => {
    setBusy(true);
    setError(undefined);
    try {
      onReprocessed(await client.reprocessDocument(doc.id));
    } catch (e) {
      // Deleted meanwhile (another tab, another member): the row goes, as a delete's would.
      if (isNotFound(e)) onDeleted(doc.id);
      else setError(e);
    }
    setBusy(false);
  };
  return (
    <tr data-testid="doc-row" data-doc-id={doc.id} data-filename={doc.filename} data-status={doc.status}>
      <td className="filename" title={`sha256 ${doc.sha256}`}>{doc.filename}</td>
      <td title={doc.contentType}>{mediaType(doc.contentType)}</td>
      <td className="num" title={`${doc.size.toLocaleString('en-US')} bytes`}>{formatBytes(doc.size)}</td>
      <td className="doc-status">
        <span className={`status-badge ${doc.status}`} data-testid="doc-status">{doc.status}</span>
        {doc.status === 'failed' && doc.error ? (
          <span className="doc-error" data-testid="doc-error" data-code={doc.error.code}>
            <strong>{failureTitle(doc.error.code)}</strong> <code>{doc.error.code}</code>: {doc.error.message}
          </span>
        ) : null}
      </td>
      <td className="num" data-testid="doc-pages">{count(doc.pages)}</td>
      <td className="num" data-testid="doc-chunks">{count(doc.chunks)}</td>
      <td title={doc.createdAt}>{time(doc.createdAt)}</td>
      <td className="actions">
        <button
          type="button"
          data-testid="reprocess-doc"
          aria-label={`Reprocess ${doc.filename}`}
          title={pending ? 'Waiting for processing already' : 'Extract and index the file again'}
          disabled={busy || pending}
          onClick={() => void reprocess()}
        >
          {busy ? 'Reprocessing…' : 'Reprocess'}
        </button>{' '}
        <ConfirmAction
          label="Delete"
          ariaLabel={`Delete ${doc.filename}?`}
          question="Delete for good?"
          confirm="Yes, delete"
          busy="Deleting…"
          testids={{ start: 'delete-doc', confirm: 'confirm-delete', cancel: 'cancel-delete' }}
          staysBusy
          action={async () => {
            // Already gone (deleted elsewhere): what the user asked for holds, so the row goes all the same.
            await client.deleteDocument(doc.id).catch((e: unknown) => {
              if (!isNotFound(e)) throw e;
            });
            onDeleted(doc.id);
          }}
        />
        <ErrorBanner error={error} />
      </td>
    </tr>
  );
}
