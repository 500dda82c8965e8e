#!/usr/bin/env node
/**
 * The heavy reader of the fairness test and of bench/fairness: one user running the heaviest reads the API allows
 * on their own project, in `loops` parallel loops, for `durationMs`, from a process of its own (so that reading
 * the responses costs this process, not the server's). Each loop cycles through: metrics over the longest window
 * (90 days), the whole project's trace records unpaged (streamed, counted, not kept), a url no record has with
 * limit=1, and a page of 1000 at `cursor` (deep in the window). Prints a JSON summary on stdout.
 *
 * Usage: node heavy-reader.mjs '{"base":"http://127.0.0.1:8080","token":"...","projectId":1,"cursor":"...",
 *   "from":"...","to":"...","durationMs":15000,"loops":2}'
 */

const options = JSON.parse(process.argv[2] ?? '{}');
const { base, token, projectId, cursor, from, to, durationMs = 15_000, loops = 2 } = options;
const headers = { Authorization: `Bearer ${token}` };
const enc = encodeURIComponent;

const reads = [
  ['metrics', `/metrics?projectId=${projectId}&from=${enc(new Date(Date.parse(to) - 90 * 86_400_000).toISOString())}&to=${enc(to)}`],
  ['url', `/logs/project?id=${projectId}&url=zzzz&limit=1`],
  ['deep', `/logs/project?id=${projectId}&from=${enc(from)}&to=${enc(to)}&limit=1000&cursor=${enc(cursor)}`],
  ['stream', `/logs/project?id=${projectId}`],
];

const summary = { requests: 0, byKind: {}, statuses: {}, bytes: 0, endMarkers: 0 };
const until = Date.now() + durationMs;

async function loop(offset) {
  for (let i = offset; Date.now() < until; i++) {
    const [kind, path] = reads[i % reads.length];
    const started = Date.now();
    const k = (summary.byKind[kind] ??= { started: 0, done: 0, maxMs: 0 });
    k.started += 1;
    try {
      const res = await fetch(base + path, { headers });
      let tail = '';
      for await (const chunk of res.body) {
        summary.bytes += chunk.length;
        tail = (tail + Buffer.from(chunk).toString('utf8')).slice(-300);
      }
      if (tail.includes('"read_timeout"')) summary.endMarkers += 1;
      summary.statuses[res.status] = (summary.statuses[res.status] ?? 0) + 1;
    } catch (err) {
      summary.statuses.error = (summary.statuses.error ?? 0) + 1;
    }
    k.done += 1;
    k.maxMs = Math.max(k.maxMs, Date.now() - started);
    summary.requests += 1;
  }
}

// Stopped from outside (the test's measuring window is over): the summary so far.
process.on('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify(summary)}\n`, () => process.exit(0));
});
await Promise.all(Array.from({ length: loops }, (_, i) => loop(i)));
process.stdout.write(`${JSON.stringify(summary)}\n`);
