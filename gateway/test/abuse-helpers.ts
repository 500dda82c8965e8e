import { expect } from '@jest/globals';
import type { Server } from 'node:http';
import http from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { DEFAULT_SERVER_LIMITS, type ServerLimitsConfig } from '@lantern/config';
import { createHttpServer } from '@lantern/gateway';
import { createLogger } from '@lantern/logging';
import type { Lantern } from './harness.js';

/** The embedded app behind the very server every Lantern process runs (createHttpServer), with small limits. */
export async function listenWithLimits(l: Pick<Lantern, 'app'>, limits: Partial<ServerLimitsConfig>): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const server = createHttpServer(l.app, { ...DEFAULT_SERVER_LIMITS, ...limits }, createLogger({ service: 'abuse-test', silent: true }));
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves once the server (or the client) closed the connection. */
  closed: Promise<void>;
  isClosed(): boolean;
}

/** A plain TCP connection to 127.0.0.1:port, connected. */
export async function rawConnection(port: number): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let isClosed = false;
  socket.setEncoding('latin1');
  socket.on('data', (c: string) => (text += c));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => {
    isClosed = true;
    resolve();
  }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => text, closed, isClosed: () => isClosed };
}

/** Waits until `text()` contains `what` (the end of a response) `times` times, or fails after `ms`. */
export async function untilReceived(text: () => string, what: string, ms = 5000, times = 1): Promise<void> {
  const deadline = Date.now() + ms;
  while (text().split(what).length - 1 < times) {
    if (Date.now() > deadline) throw new Error(`nothing with ${JSON.stringify(what)} received in ${ms} ms; got ${JSON.stringify(text())}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** GET /healthz on a connection of its own: its status and how long it took. */
export function healthz(port: number): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
    }).on('error', reject);
  });
}

/** `promise`'s outcome, or 'pending' if it has not settled within `ms`. */
export function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((r) => {
    timer = setTimeout(() => r('pending'), ms);
  });
  return Promise.race([promise, pending]).finally(() => clearTimeout(timer));
}

/**
 * Checks a raw answer of the HTTP server's own (clientError): the status, the contract's error body with `code`,
 * the headers every answer carries, and Connection: close.
 */
export function expectServerError(raw: string, status: number, code: string): void {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8(\r\n|$)/);
  expect(head).toMatch(/\r\nX-Content-Type-Options: nosniff(\r\n|$)/);
  expect(head).toMatch(/\r\nCache-Control: no-store(\r\n|$)/);
  expect(head).toMatch(/\r\nConnection: close(\r\n|$)/);
  expect(head).toMatch(new RegExp(`\r\nContent-Length: ${Buffer.byteLength(body)}(\r\n|$)`));
  const parsed = JSON.parse(body) as { error: { code: string; message: string } };
  expect(parsed.error.code).toBe(code);
  expect(parsed.error.message.length).toBeGreaterThan(0);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
