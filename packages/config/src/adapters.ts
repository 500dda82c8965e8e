import { HIDDEN, shown, type Reader } from './reader.js';

/** The embedded SQLite file in DATA_DIR, or a MongoDB deployment. */
export type StoreConfig = { kind: 'sqlite' } | { kind: 'mongo'; url: string; database: string };
/** The in-process bus (one process only), or Kafka. */
export type BusConfig = { kind: 'memory' } | { kind: 'kafka'; brokers: string[]; topicPrefix: string; partitions: number };
/** Files under DATA_DIR/blobs, or a MinIO (S3) bucket; the URL carries the access key and secret. */
export type BlobsConfig = { kind: 'fs' } | { kind: 'minio'; url: string; bucket: string };

export interface AdapterConfig {
  store: StoreConfig;
  bus: BusConfig;
  blobs: BlobsConfig;
}

/**
 * A URL's text for an error message, without its credentials, and without its query (MongoDB options such as
 * tlsCertificateKeyFilePassword live there). A value with an "@" is shown only when it parses as a URL whose user
 * info ends at its one "@": otherwise part of a password could be anywhere in it (a missing scheme, an unescaped
 * "/" or "?" or a second "@" in the secret), so it is not shown at all.
 */
function redacted(raw: string): string {
  if (!raw.includes('@')) return `"${withoutQuery(raw)}"`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return HIDDEN;
  }
  const oneAt = raw.indexOf('@') === raw.lastIndexOf('@');
  if (!oneAt || url.host === '' || (url.username === '' && url.password === '')) return HIDDEN;
  return `"${url.protocol}//***@${url.host}${url.pathname}${url.search ? '?…' : ''}"`;
}

/** A URL part percent-decoded, or as it is if its encoding is broken. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function withoutQuery(raw: string): string {
  const q = raw.indexOf('?');
  return q < 0 ? raw : `${raw.slice(0, q)}?…`;
}

function urlOf(r: Reader, name: string, schemes: readonly string[], needsCredentials: boolean): string {
  const raw = r.str(name, '');
  const form = schemes.map((s) => `${s}//…`).join(' or ');
  if (raw === '') {
    r.problems.push(`${name} is required by the chosen adapter (${form})`);
    return '';
  }
  // A MongoDB seed list (`mongodb://h1:27017,h2:27017/db?replicaSet=rs0`) is not a WHATWG URL: check its form here
  // (scheme, then a non-empty host list after the optional credentials, which the URI format percent-encodes)
  // and leave the rest to the driver.
  if (schemes.includes('mongodb:') && /^mongodb(\+srv)?:\/\//i.test(raw)) {
    const authority = raw.replace(/^mongodb(\+srv)?:\/\//i, '').split(/[/?#]/)[0] ?? '';
    const hosts = authority.slice(authority.lastIndexOf('@') + 1);
    if (hosts === '' || hosts.split(',').some((h) => h.trim() === '')) {
      r.problems.push(`${name} must name at least one host: mongodb://[user:password@]host[:port][,host[:port]…][/database][?options] (got ${redacted(raw)})`);
    }
    return raw;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    r.problems.push(`${name} must be a URL (${form}); got ${redacted(raw)}`);
    return raw;
  }
  // `mongodb:host` parses (an opaque path, no host): it is a wrong form as much as a wrong scheme.
  if (!schemes.includes(url.protocol) || url.host === '') r.problems.push(`${name} must start with ${schemes.map((s) => `${s}//`).join(' or ')} and name a host (got ${redacted(raw)})`);
  else if (needsCredentials && (!url.username || !url.password)) r.problems.push(`${name} must carry the access key and secret: http://ACCESS_KEY:SECRET@host:port`);
  // MinIO's own minimums: caught here rather than when the service starts.
  else if (needsCredentials && (decoded(url.username).length < 3 || decoded(url.password).length < 8)) {
    r.problems.push(`${name}: the access key must have at least 3 characters and the secret at least 8`);
  }
  return raw;
}

function brokersOf(r: Reader): string[] {
  const raw = r.str('LANTERN_KAFKA_BROKERS', '');
  const brokers = raw.split(',').map((b) => b.trim()).filter(Boolean);
  if (brokers.length === 0) r.problems.push('LANTERN_KAFKA_BROKERS is required with LANTERN_BUS=kafka (comma-separated host:port)');
  for (const b of brokers) {
    // kafkajs splits an address at its ":", so a bracketed IPv6 address cannot be used: a host name or IPv4.
    const m = /^[A-Za-z0-9._-]+:(\d{1,5})$/.exec(b);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 65535) r.problems.push(`LANTERN_KAFKA_BROKERS: ${shown(b)} is not host:port (a host name or IPv4 address, a port from 1 to 65535)`);
  }
  return brokers;
}

/** LANTERN_STORE, LANTERN_BUS and LANTERN_BLOBS, and the addresses the chosen adapters need. */
export function adapterConfig(r: Reader): AdapterConfig {
  const storeKind = r.str('LANTERN_STORE', 'sqlite', ['sqlite', 'mongo']);
  const busKind = r.str('LANTERN_BUS', 'memory', ['memory', 'kafka']);
  const blobsKind = r.str('LANTERN_BLOBS', 'fs', ['fs', 'minio']);
  const store: StoreConfig =
    storeKind === 'mongo'
      ? { kind: 'mongo', url: urlOf(r, 'LANTERN_MONGO_URL', ['mongodb:', 'mongodb+srv:'], false), database: databaseOf(r) }
      : { kind: 'sqlite' };
  const bus: BusConfig =
    busKind === 'kafka'
      ? { kind: 'kafka', brokers: brokersOf(r), topicPrefix: topicPrefixOf(r), partitions: r.int('LANTERN_KAFKA_PARTITIONS', 6, 1, 1000) }
      : { kind: 'memory' };
  const blobs: BlobsConfig =
    blobsKind === 'minio'
      ? { kind: 'minio', url: urlOf(r, 'LANTERN_MINIO_URL', ['http:', 'https:'], true), bucket: bucketOf(r) }
      : { kind: 'fs' };
  return { store, bus, blobs };
}

function bucketOf(r: Reader): string {
  const bucket = r.str('LANTERN_MINIO_BUCKET', 'lantern-documents');
  // S3 bucket naming: 3-63 characters, lower case, digits, dots and hyphens, starting and ending alphanumeric.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) r.problems.push(`LANTERN_MINIO_BUCKET must be a valid bucket name (3-63 lower-case letters, digits, dots, hyphens); got ${shown(bucket)}`);
  return bucket;
}

function databaseOf(r: Reader): string {
  const database = r.str('LANTERN_MONGO_DATABASE', 'lantern');
  // MongoDB database names: no / \ . " $ space or NUL, under 64 bytes.
  if (!/^[^/\\. "$\0]+$/.test(database) || Buffer.byteLength(database) > 63) r.problems.push(`LANTERN_MONGO_DATABASE must be a MongoDB database name (at most 63 bytes, none of / \\ . " $ or spaces); got ${shown(database)}`);
  return database;
}

function topicPrefixOf(r: Reader): string {
  const prefix = r.str('LANTERN_KAFKA_TOPIC_PREFIX', 'lantern.');
  // Kafka topic names: letters, digits, ".", "_" and "-", at most 249 characters with the longest topic ("documents").
  if (!/^[A-Za-z0-9._-]{1,240}$/.test(prefix)) r.problems.push(`LANTERN_KAFKA_TOPIC_PREFIX may hold only letters, digits, ".", "_" and "-" (at most 240 characters); got ${shown(prefix)}`);
  return prefix;
}
