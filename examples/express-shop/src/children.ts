import { fork, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/**
 * The demo's child processes. Each runs in its own process group (`detached`), so the terminal's Ctrl-C reaches
 * only the demo, which then stops them in order; each has an IPC channel, and ends itself when the channel
 * closes (the demo died), so none outlives the demo. Their output goes to a log file.
 */

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly process: ChildProcess;
  readonly exited: Promise<Exit>;
  running(): boolean;
  /** The last few KB of its output, for an error message. */
  tail(): string;
  /** Resolves with the first output line matching `pattern`; rejects if the process ends first. */
  waitForLine(pattern: RegExp): Promise<RegExpExecArray>;
  /** Resolves with the first IPC message of that `type`; rejects if the process ends first. */
  waitForMessage<T extends { type: string }>(type: T['type']): Promise<T>;
  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves once it has exited. */
  stop(timeoutMs: number): Promise<Exit>;
}

export interface StartOptions {
  env: NodeJS.ProcessEnv;
  logFile: string;
  execArgv?: string[];
}

const TAIL_BYTES = 4096;
/** How long a child may take to be ready; generous for a cold start on a busy machine. */
const READY_TIMEOUT_MS = 60_000;

export function startChild(name: string, script: string, options: StartOptions): Child {
  const proc = fork(script, [], {
    env: options.env,
    execArgv: options.execArgv ?? [],
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  let tail = '';
  let partial = '';
  const lineWaiters = new Set<(line: string) => void>();
  const onOutput = (chunk: Buffer) => {
    log.write(chunk);
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-TAIL_BYTES);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) for (const waiter of lineWaiters) waiter(line);
  };
  proc.stdout?.on('data', onOutput);
  proc.stderr?.on('data', onOutput);

  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolve) => {
    proc.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
    proc.once('error', () => {
      // fork failed (or a signal could not be sent); 'exit' follows when the process is really gone
    });
  });
  // The output pipes may still hold the last lines after 'exit'; 'close' comes once they are read.
  proc.once('close', () => log.end());
  /** Rejects when the process ends or after READY_TIMEOUT_MS; `clear` drops the timer once the wait is over. */
  const notReady = (what: string) => {
    let timer: NodeJS.Timeout | undefined;
    const failure = Promise.race([
      exited.then((e) => Promise.reject(new Error(`${name} exited (${describeExit(e)}) before ${what}`))),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`${name} did not show ${what} within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
      }),
    ]);
    return { failure, clear: () => clearTimeout(timer) };
  };

  const child: Child = {
    name,
    pid: proc.pid ?? -1,
    process: proc,
    exited,
    running: () => exit === undefined,
    tail: () => tail,
    waitForLine(pattern) {
      let waiter: ((line: string) => void) | undefined;
      const found = new Promise<RegExpExecArray>((resolve) => {
        waiter = (line) => {
          const match = pattern.exec(line);
          if (match) resolve(match);
        };
        lineWaiters.add(waiter);
      });
      const failed = notReady(`a line matching ${pattern}`);
      return Promise.race([found, failed.failure]).finally(() => {
        failed.clear();
        lineWaiters.delete(waiter!);
      });
    },
    waitForMessage<T extends { type: string }>(type: T['type']) {
      let listener: ((message: unknown) => void) | undefined;
      const found = new Promise<T>((resolve) => {
        listener = (message) => {
          if (message !== null && typeof message === 'object' && (message as { type?: unknown }).type === type) resolve(message as T);
        };
        proc.on('message', listener);
      });
      const failed = notReady(`its "${type}" message`);
      return Promise.race([found, failed.failure]).finally(() => {
        failed.clear();
        proc.off('message', listener!);
      });
    },
    async stop(timeoutMs) {
      if (exit) return exit;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  return child;
}

export const describeExit = (e: Exit) => (e.signal ? `signal ${e.signal}` : `code ${e.code}`);
