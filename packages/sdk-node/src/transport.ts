import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import { constants as zlibConstants, gzip } from 'node:zlib';
import { isRetryableStatus, parseRetryAfter } from './retry.js';

export const SDK_VERSION = '0.1.0';
const gzipAsync = promisify(gzip);
/**
 * Level 1: for JSON nearly the size of the default level at two thirds of the CPU. A 16 KiB window and the
 * largest hash table (memLevel 9, 128 KiB) make level 1 about a quarter cheaper again on batches of spans, whose
 * repeats (keys, the trace id of a parent) are close together, at the same or a slightly better ratio
 * (docs/benchmarks.md). Any gzip reader takes a window up to 32 KiB.
 */
const GZIP_OPTIONS = { level: zlibConstants.Z_BEST_SPEED, windowBits: 14, memLevel: 9 };
/** Only the start of an answer is read: enough for `{accepted, rejected}` or an error body. */
const MAX_ANSWER_BYTES = 256 * 1024;

export interface RejectedItem {
  index: number;
  errors: string[];
}

export type SendResult =
  /** 2xx: delivered. `recognised` is false when the body is not the ingest service's answer. */
  | { outcome: 'ok'; status: number; rejected: RejectedItem[]; recognised: boolean }
  /** Network error, timeout, 408, 429, 5xx: send the same batch again later. */
  | { outcome: 'retry'; status?: number; retryAfterMs?: number; message: string }
  /** Any other answer: sending again would not help. */
  | { outcome: 'fail'; status?: number; message: string };

export interface TransportOptions {
  ingestUrl: URL;
  apiKey: string;
  requestTimeoutMs: number;
  gzipThresholdBytes: number;
  /** Batches in flight per kind: the agent keeps a socket for each (both kinds) and one for a fatal log. */
  maxConcurrentBatches: number;
}

export interface Transport {
  /** One POST; never rejects. `signal` aborts it (the outcome is then 'retry'). */
  send(path: string, body: Buffer, idempotencyKey: string, signal?: AbortSignal): Promise<SendResult & { compressed: boolean }>;
  /** Closes the idle keep-alive sockets. */
  close(): void;
}

function errorText(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: { code?: unknown; message?: unknown } };
    if (parsed?.error && typeof parsed.error === 'object') {
      return [parsed.error.code, parsed.error.message].filter((v) => typeof v === 'string').join(': ');
    }
  } catch {
    // not JSON
  }
  return '';
}

/** What an answer means for the batch. */
export function classify(status: number, retryAfter: string | string[] | undefined, body: Buffer): SendResult {
  if (status >= 200 && status <= 299) {
    try {
      const answer = JSON.parse(body.toString('utf8')) as { accepted?: unknown; rejected?: unknown };
      if (answer && typeof answer.accepted === 'number' && Array.isArray(answer.rejected)) {
        return { outcome: 'ok', status, rejected: answer.rejected as RejectedItem[], recognised: true };
      }
    } catch {
      // not JSON: below
    }
    return { outcome: 'ok', status, rejected: [], recognised: false };
  }
  const detail = errorText(body);
  const message = `the ingest service answered ${status}${detail ? ` (${detail})` : ''}`;
  if (isRetryableStatus(status)) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    return retryAfterMs === undefined ? { outcome: 'retry', status, message } : { outcome: 'retry', status, retryAfterMs, message };
  }
  const hint = status === 401 ? ': check apiKey' : status === 404 || (status >= 300 && status < 400) ? ': check ingestUrl' : '';
  return { outcome: 'fail', status, message: message + hint };
}

export function createTransport(options: TransportOptions): Transport {
  const base = options.ingestUrl;
  const lib = base.protocol === 'https:' ? https : http;
  // Requests beyond maxSockets would wait for a socket inside the agent, their time limit running meanwhile.
  const sockets = 2 * options.maxConcurrentBatches + 1;
  const agent = new lib.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, scheduling: 'lifo' });
  const userAgent = `lantern-sdk-node/${SDK_VERSION} node/${process.version}`;

  function attempt(path: string, payload: Buffer, compressed: boolean, key: string, signal?: AbortSignal): Promise<SendResult & { reusedReset?: boolean }> {
    return new Promise((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      let req: http.ClientRequest | undefined;
      const onAbort = () => req?.destroy(new Error('aborted at the close deadline'));
      const finish = (result: SendResult & { reusedReset?: boolean }) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      if (signal?.aborted) return finish({ outcome: 'retry', message: 'aborted at the close deadline' });
      const headers: http.OutgoingHttpHeaders = {
        'content-type': 'application/json',
        'content-length': payload.length,
        accept: 'application/json',
        // The answer is read as text: a proxy on the way must not have it compressed.
        'accept-encoding': 'identity',
        'x-api-key': options.apiKey,
        'idempotency-key': key,
        'user-agent': userAgent,
      };
      if (compressed) headers['content-encoding'] = 'gzip';
      try {
        const url = new URL(base.href.replace(/\/?$/, '') + path);
        req = lib.request(url, { method: 'POST', agent, headers });
      } catch (error) {
        return finish({ outcome: 'fail', message: `the request could not be made: ${(error as Error)?.message ?? String(error)}` });
      }
      const current = req;
      timer = setTimeout(() => current.destroy(new Error(`no answer within ${options.requestTimeoutMs} ms`)), options.requestTimeoutMs);
      timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
      current.on('error', (error: NodeJS.ErrnoException) => {
        finish({ outcome: 'retry', message: `network error: ${error.message}`, reusedReset: current.reusedSocket && error.code === 'ECONNRESET' });
      });
      current.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const status = res.statusCode ?? 0;
        const done = () => finish(classify(status, res.headers['retry-after'], Buffer.concat(chunks)));
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', done);
        // The answer's status is known even if its body is cut short.
        res.on('error', done);
        res.on('close', done);
      });
      current.end(payload);
    });
  }

  return {
    async send(path, body, key, signal) {
      let payload = body;
      let compressed = false;
      if (payload.length > options.gzipThresholdBytes) {
        try {
          payload = await gzipAsync(payload, GZIP_OPTIONS);
          compressed = true;
        } catch {
          // send it uncompressed
        }
      }
      let result = await attempt(path, payload, compressed, key, signal);
      // A kept-alive socket closed by the server just as it was reused: the request never arrived, try once more now.
      if (result.outcome === 'retry' && result.reusedReset) result = await attempt(path, payload, compressed, key, signal);
      delete result.reusedReset;
      return { ...result, compressed };
    },
    close() {
      agent.destroy();
    },
  };
}
