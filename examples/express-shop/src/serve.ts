import type { Server } from 'node:http';
import type { Lantern } from '@lantern/sdk-node';
import type { Express } from 'express';

/** Shared by shop and payments: listen, tell the demo the port, and stop cleanly. */

/** Listens on `PORT` (0, the default, picks a free one) and reports `{ type: 'ready', port }` to a parent. */
export function serve(name: string, app: Express, lantern: Lantern): Server {
  const port = Number(process.env.PORT ?? 0);
  const host = process.env.HOST ?? '127.0.0.1';
  const server = app.listen(port, host, () => {
    const address = server.address();
    const actual = typeof address === 'object' && address ? address.port : port;
    console.log(`${name} listening on http://${host}:${actual}`);
    process.send?.({ type: 'ready', port: actual });
  });
  server.on('error', (error) => {
    console.error(`${name} could not listen: ${error.message}`);
    process.exit(1);
  });

  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${name} stopping (${why})`);
    // No new requests; open keep-alive connections are closed once idle, stragglers after 5 s.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const force = setTimeout(() => server.closeAllConnections(), 5000);
    await closed;
    clearTimeout(force);
    // Sends what the SDK still buffers (spans of the last requests, their logs) before the process ends.
    const stats = await lantern.close({ timeoutMs: 5000 });
    console.log(`${name} stopped: spans sent ${stats.traces.sent} (dropped ${stats.traces.dropped}), logs sent ${stats.logs.sent} (dropped ${stats.logs.dropped})`);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  // Started by the demo and the demo is gone (even killed with SIGKILL): stop too, never linger as an orphan.
  if (process.send) process.once('disconnect', () => void stop('the demo went away'));
  return server;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A whole number of milliseconds between `min` and `max`, to make the traces look like real work. */
export const jitter = (min: number, max: number) => Math.round(min + Math.random() * (max - min));
