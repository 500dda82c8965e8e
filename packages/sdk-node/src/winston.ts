import TransportStream from 'winston-transport';
import type { LogApi, LogLevel } from './index.js';

/**
 * A winston transport that sends every log it receives to Lantern, with the trace of the request it was
 * written in: `logger.add(new LanternTransport({ lantern }))`. Only this subpath loads winston-transport.
 */

export interface LanternTransportOptions extends TransportStream.TransportStreamOptions {
  /** The client made by createLantern() (only its `log` is used). */
  lantern: { log: Pick<LogApi, 'write'> };
}

/** winston's npm, syslog and cli level names, and Lantern's own, to Lantern's levels. */
const LEVELS: Record<string, LogLevel> = {
  fatal: 'fatal', emerg: 'fatal', alert: 'fatal', crit: 'fatal',
  error: 'error',
  warn: 'warn', warning: 'warn',
  info: 'info', notice: 'info', http: 'info', help: 'info', data: 'info', prompt: 'info',
  verbose: 'debug', debug: 'debug', input: 'debug',
  silly: 'trace', trace: 'trace',
};

const LEVEL = Symbol.for('level');
/** Keys of a winston info object that are not the application's fields. */
const OWN_KEYS = new Set(['level', 'message', 'timestamp']);

export function lanternLevel(winstonLevel: unknown): LogLevel {
  return (typeof winstonLevel === 'string' && LEVELS[winstonLevel]) || 'info';
}

export class LanternTransport extends TransportStream {
  private readonly client: { log: Pick<LogApi, 'write'> };

  constructor(options: LanternTransportOptions) {
    const { lantern, ...rest } = options ?? ({} as LanternTransportOptions);
    if (!lantern || typeof lantern.log?.write !== 'function') {
      throw new TypeError('@lantern/sdk-node/winston: option "lantern" must be the client made by createLantern()');
    }
    super(rest);
    this.client = lantern;
  }

  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    try {
      // The level before any colorize format, else the visible one.
      const level = lanternLevel(info[LEVEL] ?? info.level);
      const fields: Record<string, unknown> = {};
      for (const key of Object.keys(info)) if (!OWN_KEYS.has(key)) fields[key] = info[key];
      const ts = info.timestamp;
      const timestamp = typeof ts === 'string' || typeof ts === 'number' || ts instanceof Date ? ts : undefined;
      void this.client.log.write(level, info.message, fields, timestamp === undefined ? undefined : { timestamp });
    } catch {
      // never throw into the host's logger
    }
    next();
  }
}

export default LanternTransport;
