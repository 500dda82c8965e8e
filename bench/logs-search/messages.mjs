// The log messages of bench/logs-search (run.mjs, mongo-blocks.mjs): templates with a vocabulary of common words, a
// word in ~0.1 % of them ("deadlock"), a rare one in ~1 per 100,000 ("zebracorn"); levels 70 % info, 15 % debug,
// 10 % warn, 4.5 % error, 0.5 % fatal. Deterministic for a seed, so every run stores the same messages.
import { randomUUID } from 'node:crypto';

/** A small deterministic PRNG (mulberry32); bench/traces-search uses it too. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SERVICES = ['checkout', 'billing', 'inventory', 'search', 'auth', 'shipping', 'catalog', 'notifications'];
const PATHS = ['/api/v1/items', '/api/v1/carts', '/api/v1/orders', '/api/v1/users', '/health', '/api/v1/payments'];
const LEVELS = [['info', 0.7], ['debug', 0.85], ['warn', 0.95], ['error', 0.995], ['fatal', 1]];

/** The generator of a seed: `message()` and `level()`, and the PRNG helpers they draw from. */
export function logGenerator(seed) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const int = (n) => Math.floor(rand() * n);
  const templates = [
    () => `GET ${pick(PATHS)}/${int(100000)} served in ${int(900)} ms`,
    () => `POST ${pick(PATHS)} answered ${pick([200, 201, 400, 404, 409, 500, 503])} after ${int(2000)} ms`,
    () => `Timeout calling ${pick(SERVICES)} after ${int(30000)} ms (attempt ${1 + int(3)})`,
    () => `user ${int(1000000)} signed in from 10.${int(256)}.${int(256)}.${int(256)}`,
    () => `cache miss for key product:${int(500000)} in region eu-${pick(['west', 'central', 'north'])}-1`,
    () => `payment ${randomUUID()} captured for order ${int(10000000)}`,
    () => `queue ${pick(SERVICES)}-jobs depth ${int(5000)}, oldest message ${int(600)} s`,
    () => `retrying ${pick(SERVICES)} request with backoff ${int(8000)} ms`,
    () => `connection pool ${pick(SERVICES)}: ${int(64)} in use, ${int(64)} idle`,
    () => `slow query on table ${pick(['orders', 'items', 'users', 'events'])} took ${int(5000)} ms`,
  ];
  function message() {
    let text = pick(templates)();
    const r = rand();
    if (r < 0.00001) text += ' zebracorn detected';
    else if (r < 0.00101) text += ' deadlock detected';
    return text;
  }
  function level() {
    const r = rand();
    return LEVELS.find(([, upTo]) => r < upTo)[0];
  }
  return { rand, pick, int, message, level, services: SERVICES };
}
