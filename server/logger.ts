import { destination, pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** pino's levels; anything else makes pino throw when the logger is created. */
export const LOG_LEVELS: readonly string[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** The hub's structured logger: JSON lines on stderr (stdout stays free for the CLI's own output). */
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  if (!LOG_LEVELS.includes(level)) {
    throw new RangeError(`invalid log level "${level}" (one of ${LOG_LEVELS.join(', ')})`);
  }
  return pino({ name: 'session-hub', level, base: { ...base } }, destination(2));
}
