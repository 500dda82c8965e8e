/**
 * Loss at exit. `beforeExit` (the event loop ran dry: the application is done) starts the drain of every open
 * client, which keeps the process alive until it is sent or the deadline passes. `exit` (process.exit(), or the
 * end after the drain) can only run synchronous code: what is still in memory is written to the spool, or counted
 * and reported as dropped. One pair of listeners serves all clients; it is removed with the last one.
 */

export interface ExitParticipant {
  /** The application is done: drain (asynchronously). */
  beforeExit(): void;
  /** The process is exiting now: spool or report synchronously. */
  exit(): void;
}

const participants = new Set<ExitParticipant>();

function onBeforeExit(): void {
  for (const p of [...participants]) {
    try {
      p.beforeExit();
    } catch {
      // never throw into the host
    }
  }
}

function onExit(): void {
  for (const p of [...participants]) {
    try {
      p.exit();
    } catch {
      // never throw into the host
    }
  }
}

export function registerExit(participant: ExitParticipant): void {
  if (participants.size === 0) {
    process.on('beforeExit', onBeforeExit);
    process.on('exit', onExit);
  }
  participants.add(participant);
}

export function unregisterExit(participant: ExitParticipant): void {
  if (!participants.delete(participant)) return;
  if (participants.size === 0) {
    process.removeListener('beforeExit', onBeforeExit);
    process.removeListener('exit', onExit);
  }
}
