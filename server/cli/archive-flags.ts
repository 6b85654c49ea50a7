import type { ArchivePolicy } from '../archive/archiver.ts';

/** The `serve` flags of the archive (docs/operations.md#the-archive), each also an environment variable. */

/** `parseArgs` options of these flags. */
export const ARCHIVE_FLAG_OPTIONS = {
  archive: { type: 'string' },
  'archive-after': { type: 'string' },
  'hot-max-events': { type: 'string' },
  'hot-max-bytes': { type: 'string' },
  'idempotency-window': { type: 'string' },
} as const;

export const archiveFlagsUsage = `  --archive <file:dir|postgres://...>  the cold tier: prefixes of sessions go there and are trimmed from Redis;
                       reads stay seamless (env SESSION_HUB_ARCHIVE; default none: everything stays in Redis)
  --archive-after <d>  archive a session idle for this long: 90s, 30m, 1h, 7d (env SESSION_HUB_ARCHIVE_AFTER;
                       default 1h)
  --hot-max-events <n>  ... or whose hot part holds more events, down to half (env SESSION_HUB_HOT_MAX_EVENTS)
  --hot-max-bytes <n>  ... or takes more bytes in Redis, down to about half (env SESSION_HUB_HOT_MAX_BYTES)
  --idempotency-window <d>  drop the idempotency keys of archived appends committed longer ago: 1h, 7d (env
                       SESSION_HUB_IDEMPOTENCY_WINDOW; default: kept for the session's life)
`;

type Values = { readonly [K in keyof typeof ARCHIVE_FLAG_OPTIONS]?: string | undefined };

/** The archive's location and policy; undefined when no archive is configured. */
export interface ArchiveSettings {
  readonly location: string;
  readonly policy: ArchivePolicy;
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as `serve` takes it: an integer and a unit (ms, s, m, h, d); undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(text);
  if (match === null) return undefined;
  const value = Number(match[1]) * UNITS[match[2]!]!;
  return value > 0 && Number.isSafeInteger(value) ? value : undefined;
}

/** The archive set by these flags (over their environment variables). `usage` builds the error of a bad value. */
export function parseArchiveFlags(
  values: Values,
  env: Readonly<Record<string, string | undefined>>,
  usage: (message: string) => Error,
): ArchiveSettings | undefined {
  const read = (flag: keyof Values & string, envName: string): { name: string; text: string | undefined } => {
    const fromFlag = values[flag];
    if (typeof fromFlag === 'string') return { name: `--${flag}`, text: fromFlag };
    const fromEnv = env[envName];
    return { name: envName, text: fromEnv === '' ? undefined : fromEnv };
  };
  const positive = ({ name, text }: { name: string; text: string | undefined }): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value <= 0) {
      throw usage(`invalid ${name} "${text}" (expected a positive integer)`);
    }
    return value;
  };
  const location = read('archive', 'SESSION_HUB_ARCHIVE');
  const after = read('archive-after', 'SESSION_HUB_ARCHIVE_AFTER');
  const events = read('hot-max-events', 'SESSION_HUB_HOT_MAX_EVENTS');
  const bytes = read('hot-max-bytes', 'SESSION_HUB_HOT_MAX_BYTES');
  const window = read('idempotency-window', 'SESSION_HUB_IDEMPOTENCY_WINDOW');
  const duration = ({ name, text }: { name: string; text: string | undefined }): number | undefined => {
    if (text === undefined) return undefined;
    const parsed = parseDuration(text);
    if (parsed === undefined) throw usage(`invalid ${name} "${text}" (e.g. 90s, 30m, 1h, 7d)`);
    return parsed;
  };
  const archiveAfterMs = duration(after) ?? 3_600_000;
  const idempotencyWindowMs = duration(window);
  const hotMaxEvents = positive(events);
  const hotMaxBytes = positive(bytes);
  if (location.text === undefined) {
    const given = [after, events, bytes, window].filter(
      (setting) => setting.text !== undefined && setting.name.startsWith('--'),
    );
    if (given.length > 0) throw usage(`${given.map((setting) => setting.name).join(', ')} need(s) --archive`);
    return undefined;
  }
  return {
    location: location.text,
    policy: {
      archiveAfterMs,
      ...(hotMaxEvents === undefined ? {} : { hotMaxEvents }),
      ...(hotMaxBytes === undefined ? {} : { hotMaxBytes }),
      ...(idempotencyWindowMs === undefined ? {} : { idempotencyWindowMs }),
    },
  };
}
