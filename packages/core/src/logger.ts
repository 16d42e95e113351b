import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths never written to a log, wherever they appear in a logged object. */
export const REDACTED_PATHS = [
  'authorization',
  'cookie',
  'password',
  'key',
  'apiKey',
  'token',
  'secret',
  'visitorToken',
  '*.authorization',
  '*.cookie',
  '*.password',
  '*.key',
  '*.apiKey',
  '*.token',
  '*.secret',
  '*.visitorToken',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

export function createLogger(options: { level?: string; name?: string; destination?: pino.DestinationStream } = {}): Logger {
  const settings: pino.LoggerOptions = {
    name: options.name ?? 'kb',
    level: options.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
