import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { searchTerms } from '@lantern/domain';

/**
 * A small server of the OpenAI-compatible `POST /v1/embeddings` API with deterministic vectors, for tests (no model
 * can be downloaded on these machines): each word of a text (searchTerms) adds 1 to the dimension its hash picks,
 * after `synonyms` map words onto others, so texts sharing words (or synonyms) point the same way. It records the
 * requests it got and can be told to fail the next ones.
 */
export interface EmbeddingServer {
  url: string;
  requests: { authorization?: string; body: { model: string; input: string[]; dimensions?: number } }[];
  failNext(count: number, status: number, headers?: Record<string, string>, body?: string): void;
  /** Forgets the failures failNext queued and not yet answered (the provider is back). */
  recover(): void;
  /** The next answers are this body instead (a malformed answer). */
  answerNext(count: number, body: unknown): void;
  close(): Promise<void>;
}

export function vectorOf(text: string, dimensions: number, synonyms: Record<string, string> = {}): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const term of searchTerms(text)) {
    const word = synonyms[term] ?? term;
    vector[createHash('sha256').update(word).digest().readUInt32BE(0) % dimensions]! += 1;
  }
  return vector;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startEmbeddingServer(options: { apiKey?: string; synonyms?: Record<string, string> } = {}): Promise<EmbeddingServer> {
  const requests: EmbeddingServer['requests'] = [];
  const failures: { status: number; headers: Record<string, string>; body: string }[] = [];
  const answers: unknown[] = [];
  const server: Server = createServer((req, res) => {
    void bodyOf(req).then((raw) => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return send(404, { error: { message: 'not found' } });
      const body = JSON.parse(raw) as { model: string; input: string | string[]; dimensions?: number };
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      requests.push({ ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), body: { ...body, input } });
      const failure = failures.shift();
      if (failure) return send(failure.status, failure.body, failure.headers);
      // As some providers and proxies do, the refusal quotes the key it was given.
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return send(401, { error: { message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7)}.` } });
      }
      if (answers.length > 0) return send(200, answers.shift());
      const dimensions = body.dimensions ?? 64;
      return send(200, {
        object: 'list', model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 },
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text, dimensions, options.synonyms) })),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    failNext: (count, status, headers = {}, body = '{"error":{"message":"busy"}}') => {
      for (let i = 0; i < count; i++) failures.push({ status, headers, body });
    },
    recover: () => {
      failures.length = 0;
    },
    answerNext: (count, body) => {
      for (let i = 0; i < count; i++) answers.push(body);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
