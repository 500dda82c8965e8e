import { afterEach, beforeEach } from '@jest/globals';
import { createLantern, type DropInfo, type Lantern, type LanternError, type LanternOptions } from '@lantern/sdk-node';
import { FaultServer } from './fault-server.js';

export interface TestClient {
  lantern: Lantern;
  errors: LanternError[];
  drops: DropInfo[];
  /** Sum of the reported drops, optionally of one kind and reason. */
  dropped(kind?: DropInfo['kind'], reason?: DropInfo['reason']): number;
}

/** A client with short backoffs, a long interval (tests flush explicitly) and hooks that collect what is reported. */
export function testClient(ingestUrl: string, extra: LanternOptions = {}): TestClient {
  const errors: LanternError[] = [];
  const drops: DropInfo[] = [];
  const lantern = createLantern({
    apiKey: 'test-api-key',
    ingestUrl,
    flushIntervalMs: 60_000,
    retryBaseMs: 10,
    retryMaxMs: 40,
    requestTimeoutMs: 5_000,
    flushOnExit: false,
    onError: (e) => errors.push(e),
    onDrop: (d) => drops.push(d),
    ...extra,
  });
  const dropped = (kind?: DropInfo['kind'], reason?: DropInfo['reason']) =>
    drops.filter((d) => (!kind || d.kind === kind) && (!reason || d.reason === reason)).reduce((n, d) => n + d.count, 0);
  return { lantern, errors, drops, dropped };
}

/**
 * For a test file: a fresh fault-injecting server before each test, and `client()` to make clients on it; after
 * each test the clients are closed (within `closeTimeoutMs`) and the server too.
 */
export function useFaultServer(closeTimeoutMs = 500) {
  let clients: TestClient[] = [];
  const fx = {
    server: undefined as unknown as FaultServer,
    client(extra: LanternOptions = {}): TestClient {
      const c = testClient(fx.server.url, extra);
      clients.push(c);
      return c;
    },
  };
  beforeEach(async () => {
    fx.server = await FaultServer.start();
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.lantern.close({ timeoutMs: closeTimeoutMs })));
    clients = [];
    await fx.server.close();
  });
  return fx;
}
