// The abusive clients of bench/abuse/run.mjs, one function a case, each resolving with what it saw. Node built-ins only.
import http from 'node:http';
import net from 'node:net';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `n` TCP connections to 127.0.0.1:port, opened `batch` at a time (the listen backlog is 511). */
async function openSockets(port, n, batch = 200) {
  const sockets = [];
  for (let i = 0; i < n; i += batch) {
    const group = Array.from({ length: Math.min(batch, n - i) }, () => new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => undefined);
      s.once('connect', () => resolve(s));
      s.once('close', () => resolve(s));
    }));
    sockets.push(...(await Promise.all(group)));
  }
  return sockets;
}

/** Watches a socket: the first bytes the server sent, and when it closed (ms since `t0`). */
function watch(socket, t0) {
  const w = { first: '', closedAt: undefined };
  socket.setEncoding('latin1');
  socket.on('data', (c) => { if (w.first.length < 64) w.first += c; });
  const mark = () => { w.closedAt ??= performance.now() - t0; };
  if (socket.destroyed) mark();
  socket.once('close', mark);
  return w;
}

const statusOf = (first) => Number(/^HTTP\/1\.1 (\d{3})/.exec(first)?.[1] ?? 0);
function closings(watched) {
  const closed = watched.filter((w) => w.closedAt !== undefined).map((w) => w.closedAt).sort((a, b) => a - b);
  const statuses = {};
  for (const w of watched) statuses[statusOf(w.first) || 'none'] = (statuses[statusOf(w.first) || 'none'] ?? 0) + 1;
  return { closedByServer: closed.length, firstClosedS: closed[0] / 1000, lastClosedS: closed[closed.length - 1] / 1000, statuses };
}

/** Slowloris: `n` connections that send a request line, then one header line every `everyMs`, never ending them. */
export async function slowloris(port, { n = 2000, everyMs = 5000, waitMs = 40_000 } = {}) {
  const t0 = performance.now();
  const sockets = await openSockets(port, n);
  const watched = sockets.map((s) => watch(s, t0));
  sockets.forEach((s, i) => s.write(`GET /healthz HTTP/1.1\r\nHost: lantern\r\nX-Slow-${i}: 1\r\n`));
  let tick = 0;
  const slices = Math.max(1, Math.round(everyMs / 1000));
  const drip = setInterval(() => {
    tick++;
    sockets.forEach((s, i) => { if (!s.destroyed && i % slices === tick % slices) s.write(`X-More-${tick}: 1\r\n`); });
  }, 1000);
  const deadline = performance.now() + waitMs;
  while (performance.now() < deadline && watched.some((w) => w.closedAt === undefined)) await sleep(250);
  clearInterval(drip);
  const open = sockets.filter((s) => !s.destroyed).length;
  for (const s of sockets) s.destroy();
  return { connections: n, stillOpenAtEnd: open, ...closings(watched) };
}

/** `n` keep-alive connections that each make one request, then stay idle until the server closes them. */
export async function idleKeepAlive(port, { n = 5000, waitMs = 90_000 } = {}) {
  const sockets = await openSockets(port, n);
  const answered = await Promise.all(sockets.map((s) => new Promise((resolve) => {
    let text = '';
    const onData = (c) => {
      text += c;
      if (text.includes('{"status":"ok"}')) { s.off('data', onData); resolve(true); }
    };
    s.on('data', onData);
    s.once('close', () => resolve(false));
    s.write('GET /healthz HTTP/1.1\r\nHost: lantern\r\nConnection: keep-alive\r\n\r\n');
  })));
  const t0 = performance.now();
  const watched = sockets.map((s) => watch(s, t0));
  const deadline = performance.now() + waitMs;
  while (performance.now() < deadline && watched.some((w) => w.closedAt === undefined)) await sleep(250);
  const open = sockets.filter((s) => !s.destroyed).length;
  for (const s of sockets) s.destroy();
  const { closedByServer, firstClosedS, lastClosedS } = closings(watched);
  return { connections: n, answered: answered.filter(Boolean).length, stillOpenAtEnd: open, closedByServer, firstClosedAfterIdleS: firstClosedS, lastClosedAfterIdleS: lastClosedS };
}

const BOUNDARY = '----lantern-abuse-bench';
const partHead = (name) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n`);
const partTail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** A 10 MiB text upload trickled at `bytesPerSecond`: when and how the server ended it. */
export async function trickle(port, { token, tenantId, size = 10 * 1024 * 1024, bytesPerSecond = 1024, waitMs = 400_000 }) {
  const head = partHead('trickle.txt');
  const socket = (await openSockets(port, 1))[0];
  const t0 = performance.now();
  const w = watch(socket, t0);
  socket.write(`POST /ai/docs?TenantId=${tenantId} HTTP/1.1\r\nHost: lantern\r\nAuthorization: Bearer ${token}\r\n`
    + `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${head.length + size + partTail.length}\r\n\r\n`);
  socket.write(head);
  let sent = 0;
  const chunk = Buffer.alloc(bytesPerSecond / 4, 'a');
  const drip = setInterval(() => {
    if (socket.destroyed || sent >= size) return;
    socket.write(chunk);
    sent += chunk.length;
  }, 250);
  const deadline = performance.now() + waitMs;
  while (performance.now() < deadline && w.closedAt === undefined) await sleep(250);
  clearInterval(drip);
  socket.destroy();
  return { declaredBytes: size, sentBytes: sent, cutAfterS: w.closedAt === undefined ? null : w.closedAt / 1000, status: statusOf(w.first) || 'none' };
}

/** One upload of `data` (a prefix making it unique, then the shared bytes): its status. */
function uploadOnce(port, { token, tenantId }, name, prefix, data) {
  const head = partHead(name);
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/ai/docs?TenantId=${tenantId}`, agent: false, headers: {
      authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': head.length + prefix.length + data.length + partTail.length,
    } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
    req.on('error', () => resolve(0));
    req.write(head);
    req.write(prefix);
    req.write(data);
    req.end(partTail);
  });
}

/** `n` uploads of 10 MB at once, each different (its first line); the statuses by count. */
export async function concurrentUploads(port, tenancy, { n = 100, size = 10_000_000, concurrency = n } = {}) {
  const line = 'abcdefghijklmnopqrstuvwxyz0123456789 the quick brown fox jumps over the lazy dog\n';
  const shared = Buffer.from(line.repeat(Math.ceil(size / line.length))).subarray(0, size - 32);
  const t0 = performance.now();
  const statuses = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      statuses.push(await uploadOnce(port, tenancy, `load-${i}.txt`, Buffer.from(`upload ${String(i).padStart(6, '0')} ${Date.now()}\n`.padEnd(32, '-')), shared));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const byStatus = {};
  for (const s of statuses) byStatus[s] = (byStatus[s] ?? 0) + 1;
  return { uploads: n, bytesEach: size, seconds: (performance.now() - t0) / 1000, statuses: byStatus };
}

/** POST /ingest/traces bodies nested `depth` levels, `concurrency` at a time for `seconds`: statuses and the slowest answer. */
export async function deepJson(port, apiKey, { depth = 100_000, seconds = 10, concurrency = 4 } = {}) {
  const body = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const byStatus = {};
  const ms = [];
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      const status = await new Promise((resolve) => {
        const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/ingest/traces', agent: false,
          headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': apiKey } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
        req.on('error', () => resolve(0));
        req.end(body);
      });
      ms.push(performance.now() - t);
      byStatus[status] = (byStatus[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  ms.sort((a, b) => a - b);
  return { requests: ms.length, depth, concurrency, statuses: byStatus, maxMs: Math.round(ms[ms.length - 1]) };
}

/** A POST /auth/login from the client address `address` (the server trusts one proxy): its status and Retry-After. */
function login(port, agent, email, password, address) {
  const body = JSON.stringify({ email, password });
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/auth/login', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': address } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'] }));
    });
    req.on('error', () => resolve({ status: 0 }));
    req.end(body);
  });
}

/** `total` wrong-password logins from one address, `concurrency` at a time, while another user logs in once a second from theirs. */
export async function loginFlood(port, { victimEmail, otherEmail, otherPassword, total = 5000, concurrency = 50 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const byStatus = {};
  // The wrong passwords checked (401) per clock minute they were sent in: the limit's windows are minutes (a flood may
  // span two), and a check waits its turn for the hasher, so its answer may come in the next minute.
  const checkedPerMinute = {};
  let retryAfter = 0;
  let left = total;
  let done = false;
  const worker = async () => {
    while (left-- > 0) {
      const sentAt = Date.now();
      const r = await login(port, agent, victimEmail, 'wrong-password-guess', '203.0.113.9');
      byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      if (r.status === 401) {
        const minute = new Date(sentAt - (sentAt % 60_000)).toISOString().slice(11, 16);
        checkedPerMinute[minute] = (checkedPerMinute[minute] ?? 0) + 1;
      }
      if (r.retryAfter) retryAfter = Math.max(retryAfter, Number(r.retryAfter));
    }
  };
  const other = {};
  const otherLoop = async () => {
    while (!done) {
      const r = await login(port, undefined, otherEmail, otherPassword, '198.51.100.7');
      other[r.status] = (other[r.status] ?? 0) + 1;
      await sleep(1000);
    }
  };
  const t0 = performance.now();
  const others = otherLoop();
  await Promise.all(Array.from({ length: concurrency }, worker));
  done = true;
  await others;
  agent.destroy();
  return { attempts: total, concurrency, seconds: (performance.now() - t0) / 1000, statuses: byStatus, checkedPerMinute, maxRetryAfterS: retryAfter, otherUserLogins: other };
}
