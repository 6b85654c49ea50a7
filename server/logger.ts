import { destination, pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** The hub's structured logger: JSON lines on stderr (stdout stays free for the CLI's own output). */
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { ...base } }, destination(2));
}
