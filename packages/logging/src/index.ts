import winston from 'winston';

export type Logger = winston.Logger;

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read them. */
  stream?: NodeJS.WritableStream;
  silent?: boolean;
}

/**
 * One JSON line per event on stdout. Callers log ids, routes, counts and durations only: never an API key,
 * JWT, password or document content.
 */
export function createLogger({ service, level = 'info', stream, silent = false }: LoggerOptions): Logger {
  const transport = stream
    ? new winston.transports.Stream({ stream })
    : new winston.transports.Console();
  return winston.createLogger({
    level,
    silent,
    defaultMeta: { service },
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    transports: [transport],
  });
}
