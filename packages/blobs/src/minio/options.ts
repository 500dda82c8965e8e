import { isIP } from 'node:net';

/** How the MinIO blob store is reached, and the checks that name what is wrong (never the secret key). */
export interface MinioBlobStoreOptions {
  /** Host name or IP of the S3 endpoint, without scheme or port. */
  endPoint: string;
  port: number;
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  /** Created at start-up when missing. */
  bucket: string;
  /** The region requests are signed for (MinIO's default: us-east-1). */
  region?: string;
  /** Bytes held in memory per upload: a body up to this size is one PUT, a longer one multipart in parts of it. */
  partSizeBytes?: number;
  /** How long a request may wait to connect and for the response to begin, before the store is deemed down. */
  requestTimeoutMs?: number;
  /** How long `ping()` (for /readyz) waits for the bucket check. */
  pingTimeoutMs?: number;
  /**
   * Where readers reach the server when that is not `endPoint:port` (a proxy or a public name in front of
   * it): `http(s)://host[:port]`. Download links are signed for this address (the signature covers the Host),
   * and the proxy must pass the Host header through unchanged. Default: the endPoint itself.
   */
  downloadBaseUrl?: string;
}

const MiB = 1024 * 1024;
/** S3's smallest part (all but the last); its largest single PUT is 5 GiB, but a part is held in memory. */
export const MIN_PART_SIZE = 5 * MiB;
export const MAX_PART_SIZE = 64 * MiB;
export const DEFAULT_PART_SIZE = 8 * MiB;
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function invalid(what: string): never {
  throw new Error(`MinIO blob store: ${what}`);
}

/** Throws an Error naming the first invalid option; returns the options with their defaults filled in. */
export function validateMinioOptions(options: MinioBlobStoreOptions): Required<Omit<MinioBlobStoreOptions, 'downloadBaseUrl'>> & Pick<MinioBlobStoreOptions, 'downloadBaseUrl'> {
  const { endPoint, port, accessKey, secretKey, bucket } = options;
  if (typeof endPoint !== 'string' || (isIP(endPoint) === 0 && !/^[A-Za-z0-9.-]+$/.test(endPoint))) {
    invalid(`endPoint must be a bare host name or IP address (got ${JSON.stringify(String(endPoint))})`);
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) invalid(`port must be 1-65535 (got ${String(port)})`);
  if (typeof options.useSSL !== 'boolean') invalid('useSSL must be true or false');
  if (typeof accessKey !== 'string' || accessKey.length < 3) invalid('the access key (user) must have at least 3 characters');
  if (typeof secretKey !== 'string' || secretKey.length < 8) invalid('the secret key (password) must have at least 8 characters');
  if (typeof bucket !== 'string' || !BUCKET_NAME.test(bucket) || bucket.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(bucket)) {
    invalid(`bucket ${JSON.stringify(String(bucket))} is not a valid S3 bucket name (3-63 of a-z 0-9 . -, starting and ending with a letter or digit)`);
  }
  const partSizeBytes = options.partSizeBytes ?? DEFAULT_PART_SIZE;
  if (!Number.isInteger(partSizeBytes) || partSizeBytes < MIN_PART_SIZE || partSizeBytes > MAX_PART_SIZE) {
    invalid(`partSizeBytes must be ${MIN_PART_SIZE}-${MAX_PART_SIZE} (got ${String(partSizeBytes)})`);
  }
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const pingTimeoutMs = options.pingTimeoutMs ?? 2_000;
  for (const [name, value] of [['requestTimeoutMs', requestTimeoutMs], ['pingTimeoutMs', pingTimeoutMs]] as const) {
    if (!Number.isInteger(value) || value < 1) invalid(`${name} must be a positive whole number of milliseconds (got ${String(value)})`);
  }
  const region = options.region ?? 'us-east-1';
  if (typeof region !== 'string' || !/^[a-z0-9-]+$/.test(region)) invalid(`region ${JSON.stringify(String(region))} is not a region name`);
  if (options.downloadBaseUrl !== undefined) downloadAddress(options.downloadBaseUrl);
  return { ...options, region, partSizeBytes, requestTimeoutMs, pingTimeoutMs };
}

/** `downloadBaseUrl` as the host, port and scheme to sign download links for. */
export function downloadAddress(base: string): { endPoint: string; port: number; useSSL: boolean } {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return invalid(`downloadBaseUrl ${JSON.stringify(base)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') invalid('downloadBaseUrl must start with http:// or https://');
  if (url.username !== '' || url.password !== '') invalid('downloadBaseUrl must not hold credentials');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    invalid('downloadBaseUrl must be only scheme, host and port (S3 links are signed for the path /<bucket>/<key>)');
  }
  const useSSL = url.protocol === 'https:';
  return { endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port === '' ? (useSSL ? 443 : 80) : Number(url.port), useSSL };
}

/**
 * `http(s)://<access key>:<secret key>@<host>[:<port>]` (credentials URL-encoded), the form of LANTERN_MINIO_URL
 * and LANTERN_TEST_MINIO_URL, into options for `bucket`. Errors name the part that is wrong, never the URL
 * itself (it holds the secret).
 */
export function minioOptionsFromUrl(url: string, bucket: string): MinioBlobStoreOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not chained as the cause: Node's URL error carries the input, secret included.
    return invalid('the URL is not a URL; expected http(s)://<access key>:<secret key>@<host>:<port>');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') invalid('the URL must start with http:// or https://'); // not echoed: in a malformed URL it may be the secret
  if (parsed.username === '') invalid('the URL has no access key (user) before the host');
  if (parsed.password === '') invalid('the URL has no secret key (password) after the access key');
  if (parsed.pathname !== '/' && parsed.pathname !== '') invalid('the URL must not have a path (the bucket is configured on its own)');
  if (parsed.search !== '' || parsed.hash !== '') invalid('the URL must not have a query or a fragment');
  const decode = (part: string, what: string): string => {
    try {
      return decodeURIComponent(part);
    } catch {
      return invalid(`the ${what} in the URL is not valid percent-encoding`);
    }
  };
  const useSSL = parsed.protocol === 'https:';
  return validateMinioOptions({
    endPoint: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port === '' ? (useSSL ? 443 : 80) : Number(parsed.port),
    useSSL,
    accessKey: decode(parsed.username, 'access key'),
    secretKey: decode(parsed.password, 'secret key'),
    bucket,
  });
}
