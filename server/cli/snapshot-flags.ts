import { DEFAULT_SNAPSHOT_POLICY, type SnapshotPolicy } from '../index.ts';

/** The `serve` flags of the snapshot policy (docs/operations.md#snapshots), each also an environment variable. */

/** `parseArgs` options of these flags. */
export const SNAPSHOT_FLAG_OPTIONS = {
  'snapshot-every-events': { type: 'string' },
  'snapshot-every-bytes': { type: 'string' },
  'snapshot-at-turn-end': { type: 'string' },
  'no-snapshots': { type: 'boolean' },
} as const;

const defaults = DEFAULT_SNAPSHOT_POLICY;

export const snapshotFlagsUsage = `  --snapshot-every-events <n>  build a session's projection snapshot each time its log reaches a multiple
                       of n events (env SESSION_HUB_SNAPSHOT_EVERY_EVENTS; default ${defaults.everyEvents})
  --snapshot-every-bytes <n>  ... and after n bytes of events committed to it since the last byte trigger
                       (env SESSION_HUB_SNAPSHOT_EVERY_BYTES; default ${defaults.everyBytes} = 512 KiB)
  --snapshot-at-turn-end <on|off>  ... and at every turn end (env SESSION_HUB_SNAPSHOT_AT_TURN_END; default on)
  --no-snapshots       build no snapshots (joins from a snapshot start at seq 0; env SESSION_HUB_SNAPSHOTS=0)
`;

type Values = {
  readonly 'snapshot-every-events'?: string | undefined;
  readonly 'snapshot-every-bytes'?: string | undefined;
  readonly 'snapshot-at-turn-end'?: string | undefined;
  readonly 'no-snapshots'?: boolean | undefined;
};

const FALSE_WORDS: ReadonlySet<string> = new Set(['0', 'false', 'no', 'off']);
const TRUE_WORDS: ReadonlySet<string> = new Set(['1', 'true', 'yes', 'on']);

/**
 * The snapshot policy set by these flags (over their environment variables; unset ones keep the hub's defaults).
 * `usage` builds the usage error of a bad value, or of a policy flag next to `--no-snapshots`.
 */
export function parseSnapshotFlags(
  values: Values,
  env: Readonly<Record<string, string | undefined>>,
  usage: (message: string) => Error,
): Partial<SnapshotPolicy> {
  const nonEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);
  const positive = (name: string, text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value <= 0) {
      throw usage(`invalid ${name} "${text}" (expected a positive integer)`);
    }
    return value;
  };
  const switchOf = (name: string, text: string | undefined): boolean | undefined => {
    if (text === undefined) return undefined;
    const word = text.toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    throw usage(`invalid ${name} "${text}" (on or off)`);
  };
  const fromFlagOrEnv = (flag: keyof Values & string, envName: string) => {
    const fromFlag = values[flag];
    if (typeof fromFlag === 'string') return { name: `--${flag}`, text: fromFlag };
    return { name: envName, text: nonEmpty(env[envName]) };
  };
  const events = fromFlagOrEnv('snapshot-every-events', 'SESSION_HUB_SNAPSHOT_EVERY_EVENTS');
  const bytes = fromFlagOrEnv('snapshot-every-bytes', 'SESSION_HUB_SNAPSHOT_EVERY_BYTES');
  const turnEnd = fromFlagOrEnv('snapshot-at-turn-end', 'SESSION_HUB_SNAPSHOT_AT_TURN_END');
  const policy: { -readonly [K in keyof SnapshotPolicy]?: SnapshotPolicy[K] } = {};
  const everyEvents = positive(events.name, events.text);
  const everyBytes = positive(bytes.name, bytes.text);
  const atTurnEnd = switchOf(turnEnd.name, turnEnd.text);
  if (everyEvents !== undefined) policy.everyEvents = everyEvents;
  if (everyBytes !== undefined) policy.everyBytes = everyBytes;
  if (atTurnEnd !== undefined) policy.atTurnEnd = atTurnEnd;
  const off =
    values['no-snapshots'] === true ||
    switchOf('SESSION_HUB_SNAPSHOTS', nonEmpty(env['SESSION_HUB_SNAPSHOTS'])) === false;
  if (!off) return policy;
  const given = (['snapshot-every-events', 'snapshot-every-bytes', 'snapshot-at-turn-end'] as const).filter(
    (flag) => values[flag] !== undefined,
  );
  if (given.length > 0) throw usage(`--no-snapshots turns snapshots off: drop --${given.join(', --')}`);
  return { enabled: false };
}
