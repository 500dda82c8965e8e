import http from 'node:http';
import https from 'node:https';
import type { ClientOptions } from 'minio';

type Transport = NonNullable<ClientOptions['transport']>;

export interface TimedTransport {
  transport: Transport;
  agent: http.Agent;
}

/**
 * http(s).request for the minio client, with a deadline it lacks: a request whose socket is idle for
 * `timeoutMs` before the response starts is destroyed with ETIMEDOUT, so a hung server fails a call instead of
 * blocking it forever. Once the response starts there is no deadline: a download's pace is the reader's.
 * Keep-alive sockets are reused between calls; `agent.destroy()` closes them.
 */
export function createTimedTransport({ useSSL, timeoutMs }: { useSSL: boolean; timeoutMs: number }): TimedTransport {
  // Idle pooled sockets are closed after 4 s, before a server's own idle timeout can reset one as it is reused.
  const agentOptions = { keepAlive: true, timeout: 4_000 };
  const agent = useSSL ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  const base = useSSL ? https.request : http.request;
  const request = (options: http.RequestOptions, callback?: (res: http.IncomingMessage) => void): http.ClientRequest => {
    const req = base(options, callback);
    req.setTimeout(timeoutMs, () => {
      const error = Object.assign(new Error(`no answer from the blob store within ${timeoutMs} ms`), { code: 'ETIMEDOUT' });
      req.destroy(error);
    });
    req.once('response', () => req.setTimeout(0));
    return req;
  };
  // The client calls request(options, callback) only; http.request's other overloads are never used.
  return { transport: { request: request as typeof http.request }, agent };
}
