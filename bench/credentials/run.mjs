// Credentials timing (issue 13): whether a login tells an unknown email from a known one by its time, whether an API
// key one character away from a real one is refused in another time than one far from it, and what one password hash
// costs. The embedded server as `pnpm start` runs it (OWASP scrypt parameters), in a child process on 127.0.0.1.
// Logins: N unknown emails and N wrong passwords of a known email, interleaved one at a time (alternating which goes
// first). Keys: near misses (the real key with its last two characters changed) and far misses (its first two random
// characters changed), each one new so the resolver's cache of unknown keys never answers, interleaved.
//
//   pnpm bench:credentials [--logins 30] [--keys 2000] [--hashes 5] [--port 18800]
// Not a test: run it on a quiet machine; it reports the load average beside its figures.
import { randomInt } from 'node:crypto';
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, post, ROOT, startLantern } from '../ingest/lantern.mjs';

const { values: opt } = parseArgs({
  options: {
    logins: { type: 'string', default: '30' },
    keys: { type: 'string', default: '2000' },
    hashes: { type: 'string', default: '5' },
    port: { type: 'string', default: '18800' },
  },
});
const port = Number(opt.port);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const loadavg = () => os.loadavg().map((x) => round(x));

function stats(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  return { n: sorted.length, median: round(percentile(sorted, 0.5)), p90: round(percentile(sorted, 0.9)), min: round(sorted[0]), max: round(sorted.at(-1)) };
}

/** Times one POST; checks its status. */
async function timed(agent, path, headers, body, expected) {
  const t0 = performance.now();
  const res = await post(agent, port, path, { 'content-type': 'application/json', ...headers }, body);
  const ms = performance.now() - t0;
  if (res.status !== expected) throw new Error(`${path}: expected ${expected}, got ${res.status} ${res.text}`);
  return ms;
}

/** The key with the characters at [from, from + n) replaced by other random ones. */
function changed(key, from, n) {
  let out = key;
  for (let i = from; i < from + n; i++) {
    let c;
    do c = ALPHABET[randomInt(ALPHABET.length)]; while (c === key[i]);
    out = `${out.slice(0, i)}${c}${out.slice(i + 1)}`;
  }
  return out;
}

const commit = execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
const machine = `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;
const loadAtStart = loadavg();

// One password hash at the product's parameters, in this process (what a login or a registration costs the server).
const { createPasswordHasher, OWASP_SCRYPT } = await import(join(ROOT, 'packages/auth/dist/index.js'));
const hasher = createPasswordHasher();
const hashMs = [];
for (let i = 0; i < Number(opt.hashes); i++) {
  const t0 = performance.now();
  await hasher.hash(`password-${i}`);
  hashMs.push(performance.now() - t0);
}

const dataDir = mkdtempSync(join(os.tmpdir(), 'lantern-bench-credentials-'));
const lantern = await startLantern({ port, dataDir });
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
try {
  const email = 'known@bench.example';
  const password = 'the-right-password';
  await timed(agent, '/auth/register', {}, JSON.stringify({ email, password }), 201);
  const unknownBody = (i) => JSON.stringify({ email: `nobody-${i}@bench.example`, password: 'a-wrong-password' });
  const wrongBody = JSON.stringify({ email, password: 'a-wrong-password' });
  for (let i = 0; i < 2; i++) { // warm-up
    await timed(agent, '/auth/login', {}, unknownBody(`w${i}`), 401);
    await timed(agent, '/auth/login', {}, wrongBody, 401);
  }
  const unknown = [];
  const wrong = [];
  for (let i = 0; i < Number(opt.logins); i++) {
    const a = () => timed(agent, '/auth/login', {}, unknownBody(i), 401).then((ms) => unknown.push(ms));
    const b = () => timed(agent, '/auth/login', {}, wrongBody, 401).then((ms) => wrong.push(ms));
    if (i % 2 === 0) { await a(); await b(); } else { await b(); await a(); }
  }

  const batch = JSON.stringify({ timestamp: new Date().toISOString(), traces: [] });
  const ingest = (key) => timed(agent, '/ingest/traces', { 'x-api-key': key }, batch, 401);
  const near = [];
  const far = [];
  for (let i = 0; i < 50; i++) await ingest(changed(lantern.apiKey, 3, 2)); // warm-up
  for (let i = 0; i < Number(opt.keys); i++) {
    const a = async () => near.push(await ingest(changed(lantern.apiKey, lantern.apiKey.length - 2, 2)));
    const b = async () => far.push(await ingest(changed(lantern.apiKey, 3, 2)));
    if (i % 2 === 0) { await a(); await b(); } else { await b(); await a(); }
  }

  const login = { unknownEmail: stats(unknown), wrongPassword: stats(wrong) };
  login.medianRatio = round(login.unknownEmail.median / login.wrongPassword.median, 3);
  const keys = { nearMiss: stats(near), farMiss: stats(far) };
  keys.medianDifferenceMs = round(keys.nearMiss.median - keys.farMiss.median, 3);
  const report = {
    date: new Date().toISOString(), commit, machine, loadAtStart, loadAtEnd: loadavg(),
    command: `node bench/credentials/run.mjs --logins ${opt.logins} --keys ${opt.keys} --hashes ${opt.hashes}`,
    scrypt: { ...OWASP_SCRYPT, keylen: 32, saltBytes: 16, hashMs: stats(hashMs) },
    login, keys,
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  agent.destroy();
  await lantern.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
