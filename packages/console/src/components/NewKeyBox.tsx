// The API key just created, shown once (the API never returns it again), with a Copy button and the setup snippets
// filled in with it.
//
// data-testid:
//   new-key          the box
//   new-key-value    <code> whose text is the key itself
//   copy-key         the Copy button (Clipboard API, or the key selected when it cannot be used)
//   dismiss-key      "I have saved it": closes the box (the key is then gone from the page)
import { useRef } from 'react';
import { CopyButton } from './CopyButton';
import { CurlSnippet, OtelSnippet, SdkSnippet } from './Snippets';

export function NewKeyBox({ apiKey, keyName, applicationName, onDismiss }: { apiKey: string; keyName: string; applicationName?: string; onDismiss(): void }) {
  const code = useRef<HTMLElement>(null);
  const ingestUrl = location.origin;
  return (
    <section className="new-key" data-testid="new-key" aria-label="New API key">
      <h3>API key “{keyName}” created</h3>
      <p className="warning" role="note">
        Copy this key now and keep it somewhere safe: <strong>it will not be shown again</strong>. Lantern stores only
        its hash.
      </p>
      <div className="key-line">
        <code ref={code} data-testid="new-key-value" className="key-value">{apiKey}</code>
        <CopyButton text={apiKey} target={code} testid="copy-key" />
      </div>
      <h4>Send your first trace</h4>
      <SdkSnippet apiKey={apiKey} ingestUrl={ingestUrl} />
      <CurlSnippet apiKey={apiKey} ingestUrl={ingestUrl} />
      <OtelSnippet apiKey={apiKey} ingestUrl={ingestUrl} serviceName={applicationName} />
      <button type="button" data-testid="dismiss-key" onClick={onDismiss}>I have saved the key</button>
    </section>
  );
}
