import type { Bus, Subscription } from '@lantern/bus';
import type { Logger } from '@lantern/logging';

/**
 * How work reaches the document workers (issue 15): the AI routes announce a stored (or reprocessed) document on the
 * bus topic `documents`, and the workers of one consumer group hear it. The message is a doorbell, not the queue:
 * it names the document and nothing more (no file, no secret), and a worker that hears it looks for waiting
 * documents in the store, where the claims keep each document to one worker. So a message heard twice, late, or for a
 * document since deleted or made ready does nothing more than a look at the queue; and a message lost (a publish
 * that failed, a worker that died after hearing it) loses no document: every worker also looks at the queue every
 * few seconds (PROCESSING_DEFAULTS.pollMs).
 */
export interface DocumentEvent {
  documentId: string;
  tenantId: string;
}

/** The consumer group of the document workers: each message reaches one worker of the group. */
export const DOCUMENT_WORKERS_GROUP = 'lantern-ai-worker';

/** Announces a document to the workers; never throws and never waits for the bus (the upload stays fast). */
export type AnnounceDocument = (doc: { id: string; tenantId: string }) => void;

export function documentAnnouncer(bus: Pick<Bus, 'publish'>, logger: Logger): AnnounceDocument {
  return (doc) => {
    const event: DocumentEvent = { documentId: doc.id, tenantId: doc.tenantId };
    // Keyed by the document: one tenant's many uploads spread over the partitions, so over the workers.
    bus.publish<DocumentEvent>('documents', [{ key: doc.id, value: event }]).catch((err: unknown) => {
      logger.warn('the document could not be announced on the bus; a worker finds it at its next look at the queue', {
        documentId: doc.id, error: (err as Error).message,
      });
    });
  };
}

const isDocumentEvent = (value: unknown): value is DocumentEvent =>
  typeof value === 'object' && value !== null && typeof (value as DocumentEvent).documentId === 'string' && typeof (value as DocumentEvent).tenantId === 'string';

/**
 * Wakes the document worker for every batch of announcements it hears in the group. A malformed message is logged
 * and skipped (throwing would have it delivered again forever).
 */
export function listenForDocuments(bus: Pick<Bus, 'subscribe'>, wake: () => void, logger: Logger, group = DOCUMENT_WORKERS_GROUP): Promise<Subscription> {
  return bus.subscribe<unknown>('documents', group, async (values) => {
    const events = values.filter(isDocumentEvent);
    if (events.length < values.length) logger.warn('skipped malformed document announcements', { skipped: values.length - events.length });
    if (events.length > 0) wake();
  });
}
