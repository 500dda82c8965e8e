import { createLantern, type DropInfo, type Lantern, type LanternError, type LanternOptions } from '@lantern/sdk-node';

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
