/**
 * Document upload with progress: XMLHttpRequest, because fetch reports no upload progress. Same conventions as
 * http.ts: the session's bearer token, the contract's error body turned into an ApiError (a 415 shows the API's
 * message), a 401 with a session signs out.
 */
import { getToken, setToken } from '../session';
import { errorFromBody } from './errors';
import { withQuery } from './http';
import type { DocumentRecord } from './types';

export interface UploadProgress { loaded: number; total: number }

export interface Upload {
  /** The stored document record (200), or an ApiError, a TypeError (network) or an AbortError. */
  done: Promise<DocumentRecord>;
  abort(): void;
}

/** POST /ai/docs?TenantId= as multipart/form-data with one part named `file`. */
export function uploadDocument(tenantId: string, file: File, onProgress?: (progress: UploadProgress) => void): Upload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<DocumentRecord>((resolve, reject) => {
    xhr.open('POST', withQuery('/ai/docs', { TenantId: tenantId }));
    xhr.setRequestHeader('accept', 'application/json');
    const token = getToken();
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (e) => onProgress?.({ loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as DocumentRecord);
        } catch {
          reject(errorFromBody(xhr.status, xhr.responseText));
        }
        return;
      }
      if (xhr.status === 401 && token) setToken(null);
      reject(errorFromBody(xhr.status, xhr.responseText));
    };
    // The server may answer (413, 415) and close before the whole body is sent: browsers then report a network error.
    xhr.onerror = () => reject(new Error('The upload was interrupted: the connection closed before Lantern answered. Check that Lantern is running, then try again.'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
  return { done, abort: () => xhr.abort() };
}
