import { closeSync, openSync, writeSync } from 'node:fs';
import type { LogLevel } from './config.js';

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
  close(): void;
}

export interface LoggerOptions {
  level: LogLevel;
  /** Absolute path of an owner-only log file; stderr when absent. Never stdout (protocol frames). */
  file?: string | undefined;
  /** Applied to every record before it is written (secret redaction). */
  redact: (record: Record<string, unknown>) => unknown;
}

/** JSON-lines logger; one object per line. */
export function createLogger(options: LoggerOptions): Logger {
  const fd = options.file ? openSync(options.file, 'a', 0o600) : 2;
  const threshold = LEVEL_ORDER[options.level];
  const write = (level: Exclude<LogLevel, 'silent'>, event: string, fields?: Record<string, unknown>): void => {
    if (LEVEL_ORDER[level] < threshold) return;
    const record = options.redact({ ts: new Date().toISOString(), level, event, ...fields });
    try {
      writeSync(fd, `${JSON.stringify(record)}\n`);
    } catch {
      // A log sink that went away must never take the server down.
    }
  };
  return {
    debug: (event, fields) => write('debug', event, fields),
    info: (event, fields) => write('info', event, fields),
    warn: (event, fields) => write('warn', event, fields),
    error: (event, fields) => write('error', event, fields),
    close: () => {
      if (fd !== 2) closeSync(fd);
    },
  };
}

/** The same logger with `redact` applied to each record's fields first (one request's own secrets). */
export function withRedaction(logger: Logger, redact: (fields: Record<string, unknown>) => unknown): Logger {
  const clean = (fields?: Record<string, unknown>) => fields && (redact(fields) as Record<string, unknown>);
  return {
    debug: (event, fields) => logger.debug(event, clean(fields)),
    info: (event, fields) => logger.info(event, clean(fields)),
    warn: (event, fields) => logger.warn(event, clean(fields)),
    error: (event, fields) => logger.error(event, clean(fields)),
    close: () => logger.close(),
  };
}
