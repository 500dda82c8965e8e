import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { ROOT, childEnv } from '../process-helpers.js';

/**
 * The distributed mode for real, for the tests: scripts/infra/cluster.mjs (shared with bench/distributed) starts
 * every service as a process of its own on the servers of pnpm test:distributed, behind nginx. This file gives it
 * types and a supertest agent on the gateway.
 */

export type ServiceName = 'accounts' | 'ingest' | 'writer' | 'query' | 'ai' | 'ai-worker';

export interface ServiceProc {
  service: ServiceName;
  port: number;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Where its stdout and stderr go (the JSON log lines). */
  logFile: string;
}

export interface Cluster {
  url: string;
  http: ReturnType<typeof request>;
  /** Every process of each service, in start order. */
  procs: Record<ServiceName, ServiceProc[]>;
  /** The environment every service runs with. */
  env: NodeJS.ProcessEnv;
  /** Sends `signal` (default SIGKILL) to one process and waits for it to exit. */
  kill(service: ServiceName, index: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts the process again on the same port and waits until it is ready. */
  restart(service: ServiceName, index: number): Promise<void>;
  stop(): Promise<void>;
}

interface ClusterModule {
  startCluster(options: { counts?: Partial<Record<ServiceName, number>>; baseEnv?: NodeJS.ProcessEnv; extraEnv?: Record<string, string> }): Promise<Omit<Cluster, 'http'>>;
  infra(name: 'kafka' | 'mongo' | 'minio', verb: 'start' | 'stop'): void;
}

const load = async () => (await import(join(ROOT, 'scripts/infra/cluster.mjs'))) as ClusterModule;

/** Starts `counts[service]` processes of each service (default 1) and nginx in front of them. */
export async function startCluster(counts: Partial<Record<ServiceName, number>> = {}, extraEnv: Record<string, string> = {}): Promise<Cluster> {
  // The parent's Lantern variables never leak into the services (childEnv drops them); the servers' addresses do.
  const baseEnv = { ...childEnv({}), ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('LANTERN_TEST_'))) };
  const cluster = await (await load()).startCluster({ counts, baseEnv, extraEnv });
  return { ...cluster, http: request(cluster.url) };
}

/** Stops or starts one of the servers (the fault tests stop Kafka and restart mongod). */
export async function infra(name: 'kafka' | 'mongo' | 'minio', verb: 'start' | 'stop'): Promise<void> {
  (await load()).infra(name, verb);
}
