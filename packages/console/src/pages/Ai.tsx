// AI tenants of the selected organization, their documents and search (#/ai; `?tenant=<id>` picks the tenant).
//
// data-testid:
//   ai-page             the page
//   tenant-list         the list of tenants;  tenant-row  one tenant's button (data-tenant-id; aria-current when picked)
//   create-tenant-form  "New tenant" form; create-tenant-name its input, create-tenant-submit its button
//                       (a taken name: the API's 409 message shows in the form)
//   tenant-docs         the picked tenant's documents section (data-tenant-id)
//   doc-dropzone, doc-upload-input, upload-item, upload-progress, upload-error, clear-uploads
//                       uploads (components/DocumentUploader.tsx)
//   doc-summary         how many documents in each status (role="status"; data-polling="true" while read again live)
//   doc-table, doc-row, doc-status, doc-error, doc-pages, doc-chunks, reprocess-doc, delete-doc, confirm-delete,
//   cancel-delete, no-docs
//                       the documents (components/DocumentTable.tsx), updated live (document-feed.ts)
//   tenant-search       the search of the tenant's documents (components/DocumentSearch.tsx)
import { useCallback, useState } from 'react';
import * as client from '../api/client';
import type { Tenant } from '../api/types';
import { DocumentSearch } from '../components/DocumentSearch';
import { DocumentTable } from '../components/DocumentTable';
import { DocumentUploader } from '../components/DocumentUploader';
import { EmptyState, ErrorBanner, Loading } from '../components/Feedback';
import { NameForm } from '../components/NameForm';
import { useUploadQueue, type UploadQueue } from '../components/upload-queue';
import { useDocumentFeed } from '../document-feed';
import { statusSummary } from '../lib/documents';
import { useAsync } from '../use-async';
import { href, navigate, useRoute } from '../router';
import { useWorkspace } from '../workspace';

export function AiPage() {
  const ws = useWorkspace();
  const route = useRoute();
  const org = ws.organization;
  const tenants = useAsync(() => (org ? client.listTenants(org.id) : Promise.resolve([])), [org?.id]);
  // Bumped after each stored document, so the documents list reads again; uploads go on while another tenant is shown.
  const [version, setVersion] = useState(0);
  const queue = useUploadQueue(useCallback(() => setVersion((v) => v + 1), []));

  if (!org) {
    return (
      <EmptyState title="No organization">
        <p><a href={href('/setup', { step: 'organization' })}>Create your organization</a> to keep AI tenants.</p>
      </EmptyState>
    );
  }
  const list = tenants.data ?? [];
  const wanted = route.params.get('tenant');
  const tenant = list.find((t) => t.id === wanted) ?? list[0];
  const createTenant = async (name: string) => {
    const created = await client.createTenant(org.id, name);
    tenants.reload();
    navigate('/ai', { tenant: created.id }, true);
  };

  return (
    <section className="ai-page" data-testid="ai-page">
      <h1>AI tenants <span className="muted">of {org.name}</span></h1>
      <div className="ai-layout">
        <aside className="tenants panel">
          <h2>Tenants</h2>
          <ErrorBanner error={tenants.error} onRetry={tenants.reload} />
          {tenants.loading && !tenants.data ? <Loading what="tenants" /> : null}
          {tenants.data && !list.length ? <p className="muted">No tenant yet: create the first one.</p> : null}
          <ul className="tenant-list" data-testid="tenant-list">
            {list.map((t) => (
              <li key={t.id}>
                <button
                  type="button"
                  data-testid="tenant-row"
                  data-tenant-id={t.id}
                  aria-current={t.id === tenant?.id ? 'true' : undefined}
                  className={t.id === tenant?.id ? 'selected' : undefined}
                  onClick={() => navigate('/ai', { tenant: t.id }, true)}
                >
                  {t.name}
                </button>
              </li>
            ))}
          </ul>
          <NameForm inline testid="create-tenant" label="New tenant" placeholder="support-bot" action="Create tenant" onSubmit={createTenant} />
        </aside>
        {tenant ? <TenantDocuments key={tenant.id} tenant={tenant} version={version} queue={queue} /> : null}
      </div>
    </section>
  );
}

function TenantDocuments({ tenant, version, queue }: { tenant: Tenant; version: number; queue: UploadQueue }) {
  const feed = useDocumentFeed(tenant.id, version);
  // Deleted here: their passages leave the search results at once.
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(() => new Set());
  const { remove } = feed;
  const onDeleted = useCallback((id: string) => {
    setDeleted((set) => new Set(set).add(id));
    remove(id);
  }, [remove]);
  return (
    <div className="tenant-main">
      <section className="tenant-docs panel" data-testid="tenant-docs" data-tenant-id={tenant.id}>
        <h2>Documents of {tenant.name}</h2>
        <DocumentUploader tenantId={tenant.id} queue={queue} />
        <ErrorBanner error={feed.error} onRetry={feed.reload} />
        {feed.loading && !feed.docs ? <Loading what="documents" /> : null}
        {feed.docs?.length ? (
          <p className="doc-summary muted" role="status" data-testid="doc-summary" data-polling={feed.pollingIn === undefined ? undefined : 'true'}>
            {statusSummary(feed.docs)}{feed.pollingIn === undefined ? '' : ' · updating live'}
          </p>
        ) : null}
        {feed.docs ? <DocumentTable docs={feed.docs} onReprocessed={feed.replace} onDeleted={onDeleted} /> : null}
      </section>
      <section className="panel" data-testid="tenant-search" aria-labelledby="tenant-search-title">
        <h2 id="tenant-search-title">Search {tenant.name}</h2>
        <DocumentSearch tenantId={tenant.id} deleted={deleted} />
      </section>
    </div>
  );
}
