// "Export" beside a list: every record its filters match (not only the loaded ones), as NDJSON or CSV, through the
// API's `format` (docs/api.md, "Exports").
//
// data-testid: export-format (the <select>), export-status
import { useState } from 'react';
import { download, type Query } from '../api/http';
import { formatBytes } from '../lib/format';

export function ExportButton({ path, query, what }: { path: string; query: Query; what: string }) {
  const [state, setState] = useState<{ busy: boolean; message?: string; error?: boolean }>({ busy: false });
  const start = (format: string) => {
    if (format !== 'ndjson' && format !== 'csv') return;
    setState({ busy: true, message: `Exporting every ${what} that matches…` });
    download(path, { ...query, format }).then(
      ({ filename, bytes }) => setState({ busy: false, message: `Saved ${filename} (${formatBytes(bytes)}).` }),
      (e: unknown) => setState({ busy: false, error: true, message: `Export failed: ${e instanceof Error ? e.message : String(e)}` }),
    );
  };
  return (
    <span className="export">
      <label className="sr-only" htmlFor={`export-${what}`}>Export every {what} that matches</label>
      <select id={`export-${what}`} data-testid="export-format" value="" disabled={state.busy} onChange={(e) => start(e.target.value)}>
        <option value="">{state.busy ? 'Exporting…' : 'Export…'}</option>
        <option value="ndjson">Export as NDJSON</option>
        <option value="csv">Export as CSV</option>
      </select>
      {state.message ? <span className={`muted export-status${state.error ? ' form-error' : ''}`} role="status" data-testid="export-status">{state.message}</span> : null}
    </span>
  );
}
