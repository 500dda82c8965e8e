// Drop zone and file input for a tenant's documents, and the uploads with their progress.
//
// data-testid:
//   doc-dropzone      the drop area (data-dragging="true" while files are dragged over it)
//   doc-upload-input  the <input type="file" multiple> ("Choose file")
//   upload-item       one upload (data-state = waiting | uploading | done | failed | refused; data-name = file name)
//   upload-progress   its <progress> (value = bytes sent, max = size)
//   upload-error      why it failed or was refused (the API's message, or the 10 MB rule checked before sending)
//   clear-uploads     "Clear finished"
import { useId, useState, type DragEvent } from 'react';
import { messageOf } from '../api/errors';
import { formatBytes } from '../lib/format';
import type { UploadItem, UploadQueue } from './upload-queue';

const STATE_TEXT: Record<UploadItem['state'], string> = {
  waiting: 'Waiting',
  uploading: 'Uploading',
  done: 'Uploaded',
  failed: 'Failed',
  refused: 'Not sent',
};

export function DocumentUploader({ tenantId, queue }: { tenantId: string; queue: UploadQueue }) {
  const inputId = useId();
  const [dragging, setDragging] = useState(false);
  const items = queue.items.filter((i) => i.tenantId === tenantId);

  const onDragOver = (e: DragEvent) => {
    if (!e.dataTransfer.types.includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const files = Array.from(e.dataTransfer.files);
    if (files.length) queue.add(tenantId, files);
  };

  return (
    <div className="uploader">
      <div
        className={dragging ? 'dropzone dragging' : 'dropzone'}
        data-testid="doc-dropzone"
        data-dragging={dragging ? 'true' : undefined}
        onDragOver={onDragOver}
        onDragEnter={onDragOver}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <input
          id={inputId}
          className="sr-only"
          type="file"
          multiple
          data-testid="doc-upload-input"
          onChange={(e) => {
            const files = Array.from(e.target.files ?? []);
            e.target.value = ''; // the same file may be chosen again
            if (files.length) queue.add(tenantId, files);
          }}
        />
        <span>Drop files here or</span>
        <label htmlFor={inputId} className="button">Choose file</label>
        <span className="muted">PDF, DOCX, TXT, MD and other text formats; 10 MB at most per file.</span>
      </div>
      {items.length ? (
        <ul className="uploads" aria-label="Uploads">
          {items.map((item) => <UploadRow key={item.id} item={item} />)}
        </ul>
      ) : null}
      {items.some((i) => i.state !== 'waiting' && i.state !== 'uploading') ? (
        <button type="button" className="link" data-testid="clear-uploads" onClick={queue.clearFinished}>Clear finished</button>
      ) : null}
    </div>
  );
}

function UploadRow({ item }: { item: UploadItem }) {
  const percent = item.total ? Math.min(100, Math.round((item.loaded / item.total) * 100)) : 0;
  const showBar = item.state === 'waiting' || item.state === 'uploading' || item.state === 'done';
  return (
    <li className={`upload ${item.state}`} data-testid="upload-item" data-state={item.state} data-name={item.name}>
      <span className="upload-name" title={item.name}>{item.name}</span>
      <span className="muted">{formatBytes(item.size)}</span>
      {showBar ? (
        <progress data-testid="upload-progress" max={item.total || 1} value={item.loaded} aria-label={`Upload of ${item.name}`}>
          {percent}%
        </progress>
      ) : <span />}
      <span className="upload-state">{STATE_TEXT[item.state]}{item.state === 'uploading' ? ` ${percent}%` : ''}</span>
      {item.error ? <span className="upload-error" role="alert" data-testid="upload-error">{messageOf(item.error)}</span> : null}
    </li>
  );
}
