import { useCallback, useEffect, useRef, useState } from 'react';
import { uploadDocument, type Upload } from '../api/upload';
import { uploadProblem } from '../lib/form-rules';

/** waiting: queued; uploading: being sent; done: stored; failed: the API or the network refused; refused: never sent. */
export type UploadState = 'waiting' | 'uploading' | 'done' | 'failed' | 'refused';

export interface UploadItem {
  id: number;
  tenantId: string;
  name: string;
  size: number;
  state: UploadState;
  loaded: number;
  total: number;
  error?: unknown;
}

interface Job { id: number; tenantId: string; file: File }

export interface UploadQueue {
  items: UploadItem[];
  /** Queues files for a tenant; files over the limit (or empty) are refused at once, the others sent one by one. */
  add(tenantId: string, files: readonly File[]): void;
  /** Forgets the finished items (done, failed, refused). */
  clearFinished(): void;
}

let nextId = 1;

/**
 * Uploads files one after another, each with its progress. `onUploaded(tenantId)` runs after each stored document.
 * Unmounting aborts the upload in flight and drops the queue.
 */
export function useUploadQueue(onUploaded: (tenantId: string) => void): UploadQueue {
  const [items, setItems] = useState<UploadItem[]>([]);
  const jobs = useRef<Job[]>([]);
  const running = useRef(false);
  const current = useRef<Upload | undefined>(undefined);
  const uploaded = useRef(onUploaded);
  uploaded.current = onUploaded;

  const update = useCallback((id: number, patch: Partial<UploadItem>) => {
    setItems((list) => list.map((item) => (item.id === id ? { ...item, ...patch } : item)));
  }, []);

  const pump = useCallback(async () => {
    if (running.current) return;
    running.current = true;
    try {
      for (let job = jobs.current.shift(); job; job = jobs.current.shift()) {
        const { id, tenantId, file } = job;
        update(id, { state: 'uploading' });
        const upload = uploadDocument(tenantId, file, (p) => update(id, { loaded: p.loaded, total: p.total }));
        current.current = upload;
        try {
          await upload.done;
          update(id, { state: 'done', loaded: file.size, total: file.size });
          uploaded.current(tenantId);
        } catch (error) {
          update(id, { state: 'failed', error });
        }
      }
    } finally {
      current.current = undefined;
      running.current = false;
    }
  }, [update]);

  useEffect(() => () => {
    jobs.current = [];
    current.current?.abort();
  }, []);

  const add = useCallback((tenantId: string, files: readonly File[]) => {
    const added: UploadItem[] = files.map((file) => {
      const problem = uploadProblem(file);
      const item: UploadItem = { id: nextId++, tenantId, name: file.name, size: file.size, state: problem ? 'refused' : 'waiting', loaded: 0, total: file.size };
      if (problem) item.error = new Error(problem);
      else jobs.current.push({ id: item.id, tenantId, file });
      return item;
    });
    setItems((list) => [...list, ...added]);
    void pump();
  }, [pump]);

  const clearFinished = useCallback(() => {
    setItems((list) => list.filter((i) => i.state === 'waiting' || i.state === 'uploading'));
  }, []);

  return { items, add, clearFinished };
}
