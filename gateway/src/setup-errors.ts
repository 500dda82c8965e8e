import type { Config } from '@lantern/config';

/** File-system errors that mean DATA_DIR cannot hold the data. */
const DATA_DIR_CODES = new Set(['EACCES', 'EPERM', 'EEXIST', 'ENOTDIR', 'EROFS', 'ENOSPC', 'ELOOP', 'ENAMETOOLONG']);

/**
 * A start or init failure in the words of the setting behind it (PORT, HOST, DATA_DIR), so the message names the
 * variable to change; anything else is reported as it is.
 */
export function explainSetupError(err: unknown, config: Pick<Config, 'port' | 'host' | 'dataDir'>): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const detail = err instanceof Error ? err.message : String(err);
  switch (code) {
    case 'EADDRINUSE':
      return `PORT ${config.port} is already in use on ${config.host}: stop the other process or set PORT to a free port.`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST "${config.host}" is not an address of this machine: set HOST to 0.0.0.0, 127.0.0.1 or one of its addresses (${detail}).`;
  }
  if ((code === 'EACCES' || code === 'EPERM') && (err as { syscall?: string }).syscall === 'listen') {
    return `PORT ${config.port} needs privileges this process does not have: set PORT to 1024 or above.`;
  }
  if (code !== undefined && DATA_DIR_CODES.has(code)) {
    return `DATA_DIR "${config.dataDir}" cannot be used: ${detail}. Set DATA_DIR to a writable directory.`;
  }
  if (/directory does not exist|unable to open database|readonly database/i.test(detail)) {
    return `DATA_DIR "${config.dataDir}" cannot be used: ${detail}. Set DATA_DIR to a writable directory.`;
  }
  return detail;
}
