import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** What the fault server does with one request; `delayMs` (else the server's `latencyMs`) passes before it does it. */
export type Behaviour = (
  /** Stores the batch (once per Idempotency-Key) and answers 200 {accepted, rejected: []}. */
  | { do: 'ok' }
  /** Stores the batch, answers 200 and lists these item indexes as rejected. */
  | { do: 'reject'; indexes: number[] }
  /** Answers this status without storing. */
  | { do: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** Stores the batch, then destroys the socket without answering: the client never learns it was stored. */
  | { do: 'lose' }
  /** Answers 200 with a body that is not JSON, without storing. */
  | { do: 'garbage' }
  /** Writes bytes that are not HTTP and closes. */
  | { do: 'not-http' }
) & { delayMs?: number };

export interface Received {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  key: string | undefined;
  /** The parsed envelope (gunzipped if needed). */
  body: { timestamp: string; traces?: Record<string, unknown>[]; logs?: Record<string, unknown>[] };
  bytes: number;
  behaviour: Behaviour['do'];
  /** Requests being handled when this one arrived, this one included (several: batches sent in parallel). */
  concurrent: number;
  /** When the answer was given (undefined while the latency runs, or when the client went away meanwhile). */
  answeredAt?: number;
}

/**
 * A real listening HTTP server standing in for the ingest service, whose answer to each request is scripted.
 * It stores batches like the real one: once per Idempotency-Key. `down()` closes the listener (connection
 * refused) and `up()` opens it again on the same port.
 */
export class FaultServer {
  readonly received: Received[] = [];
  /** Batches stored, by Idempotency-Key (or a unique id when none). */
  readonly stored = new Map<string, Received>();
  /** Consumed one per request; the default is `ok`. */
  readonly script: Behaviour[] = [];
  /** Decides instead of the script when set. */
  decide: ((r: Omit<Received, 'behaviour' | 'concurrent'>) => Behaviour | undefined) | undefined;
  /** Time between a request's arrival and what the server does with it (storing included): a distant collector. */
  latencyMs = 0;
  /** Requests arrived and not yet answered (nor given up by their client). */
  private active = 0;
  /** Answers waiting for their latency to pass. */
  private readonly delayed = new Set<NodeJS.Timeout>();
  private server: http.Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  private constructor() {
    this.server = this.makeServer();
  }

  static async start(): Promise<FaultServer> {
    const s = new FaultServer();
    await s.listen(0);
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private makeServer(): http.Server {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks)));
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    return server;
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): void {
    const text = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined;
    const base = { at: Date.now(), path: req.url ?? '', headers: req.headers, key, body: JSON.parse(text), bytes: raw.length };
    const behaviour = this.decide?.(base) ?? this.script.shift() ?? { do: 'ok' };
    const r: Received = { ...base, behaviour: behaviour.do, concurrent: ++this.active };
    this.received.push(r);
    // 'close': answered, or the client went away first.
    res.once('close', () => this.active--);
    const delay = behaviour.delayMs ?? this.latencyMs;
    if (delay <= 0) return this.answer(req, res, r, behaviour);
    const timer = setTimeout(() => {
      this.delayed.delete(timer);
      this.answer(req, res, r, behaviour);
    }, delay);
    this.delayed.add(timer);
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse, r: Received, behaviour: Behaviour): void {
    // The client gave up meanwhile (its deadline, or its process ended): nothing is stored, as with a real service.
    if (req.socket.destroyed) return;
    r.answeredAt = Date.now();
    const store = () => {
      const k = r.key ?? `no-key-${this.received.length}`;
      if (!this.stored.has(k)) this.stored.set(k, r);
    };
    const items = (r.body.traces ?? r.body.logs ?? []).length;
    switch (behaviour.do) {
      case 'ok':
        store();
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: items, rejected: [] }));
      case 'reject': {
        store();
        const rejected = behaviour.indexes.map((index) => ({ index, errors: ['/durationMs must be integer'] }));
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: items - rejected.length, rejected }));
      }
      case 'status':
        return void res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers }).end(behaviour.body ?? JSON.stringify({ error: { code: 'scripted', message: `scripted ${behaviour.status}` } }));
      case 'lose':
        store();
        return void req.socket.destroy();
      case 'garbage':
        return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
      case 'not-http':
        req.socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n');
        return;
    }
  }

  /** Connection refused from now on: the listener is closed and open connections are cut. */
  async down(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    for (const t of this.delayed) clearTimeout(t);
    this.delayed.clear();
    await closed;
  }

  /** Listening again on the same port. */
  async up(): Promise<void> {
    this.server = this.makeServer();
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    if (this.server.listening) await this.down();
  }

  /** Every span or log stored (deduplicated by key like the real service). */
  items(kind: 'traces' | 'logs'): Record<string, unknown>[] {
    return [...this.stored.values()].filter((r) => r.path === `/ingest/${kind}`).flatMap((r) => r.body[kind] ?? []);
  }

  requests(kind: 'traces' | 'logs'): Received[] {
    return this.received.filter((r) => r.path === `/ingest/${kind}`);
  }
}
