// The conversation of a bench with its child processes over their IPC channel: the bench's side (watched, ask) for
// bench/sdk-overhead/run.mjs, callgrind.mjs and bench/sdk-python/run.mjs, and a sink's side (answerAsSink) for both sinks.

/**
 * A child started with an IPC channel: `exited` resolves with its `{ code, signal }`, `ready` with the port of its
 * `{ type: 'ready', port }` message, or rejects if it says anything else first or exits before.
 */
export function watched(child, label) {
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    child.once('message', (m) => (m.type === 'ready' ? resolve(m.port) : reject(new Error(`${label}: ${JSON.stringify(m)}`))));
    exited.then(({ code, signal }) => reject(new Error(`${label} exited (${code ?? signal}) before it was ready`)));
  });
  return { child, exited, ready };
}

/** Sends `{ type }` and resolves with the child's first message of type `answer`. */
export function ask(child, type, answer = type) {
  return new Promise((resolve) => {
    const onMessage = (m) => {
      if (m.type !== answer) return;
      child.off('message', onMessage);
      resolve(m);
    };
    child.on('message', onMessage);
    child.send({ type });
  });
}

/**
 * The child's side, for a sink: says `ready` with its port once `server` listens, exits when the bench goes away,
 * and answers `reset` (the counts zeroed by `reset()`) and `counts` (`counts()` with this process's CPU time).
 */
export function answerAsSink(server, { counts, reset }) {
  server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message) => {
    if (message.type === 'reset') {
      reset();
      process.send({ type: 'reset' });
    } else if (message.type === 'counts') {
      process.send({ type: 'counts', ...counts(), cpu: process.cpuUsage() });
    }
  });
}
