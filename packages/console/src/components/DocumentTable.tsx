// A tenant's documents, newest first, with deletion behind an inline confirmation.
//
// data-testid:
//   doc-table       the table
//   doc-row         a document (data-doc-id, data-filename)
//   delete-doc      its "Delete" button;  confirm-delete / cancel-delete  the confirmation's buttons
import * as client from '../api/client';
import type { DocumentRecord } from '../api/types';
import { mediaType } from '../lib/form-rules';
import { formatBytes, formatTimestamp } from '../lib/format';
import { ConfirmAction } from './ConfirmAction';

export function DocumentTable({ docs, onDeleted }: { docs: DocumentRecord[]; onDeleted(): void }) {
  if (!docs.length) return <p className="muted" data-testid="no-docs">No document yet: drop a file above or choose one.</p>;
  return (
    <div className="table-scroll">
      <table className="table" data-testid="doc-table">
        <thead>
          <tr><th>File</th><th>Type</th><th className="num">Size</th><th>Status</th><th>Created</th><th><span className="sr-only">Actions</span></th></tr>
        </thead>
        <tbody>
          {docs.map((doc) => <DocumentRow key={doc.id} doc={doc} onDeleted={onDeleted} />)}
        </tbody>
      </table>
    </div>
  );
}

function DocumentRow({ doc, onDeleted }: { doc: DocumentRecord; onDeleted(): void }) {
  return (
    <tr data-testid="doc-row" data-doc-id={doc.id} data-filename={doc.filename}>
      <td className="filename" title={`sha256 ${doc.sha256}`}>{doc.filename}</td>
      <td title={doc.contentType}>{mediaType(doc.contentType)}</td>
      <td className="num" title={`${doc.size.toLocaleString('en-US')} bytes`}>{formatBytes(doc.size)}</td>
      <td><span className={`status-badge ${doc.status}`} title={doc.error ? `${doc.error.code}: ${doc.error.message}` : undefined}>{doc.status}</span></td>
      <td title={doc.createdAt}>{formatTimestamp(doc.createdAt)}</td>
      <td className="actions">
        <ConfirmAction
          label="Delete"
          ariaLabel={`Delete ${doc.filename}?`}
          question="Delete for good?"
          confirm="Yes, delete"
          busy="Deleting…"
          testids={{ start: 'delete-doc', confirm: 'confirm-delete', cancel: 'cancel-delete' }}
          staysBusy
          action={async () => {
            await client.deleteDocument(doc.id);
            onDeleted();
          }}
        />
      </td>
    </tr>
  );
}
