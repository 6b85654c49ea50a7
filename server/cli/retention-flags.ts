import {
  parseDuration,
  parseRetentionRule,
  RetentionPolicy,
  RetentionRuleError,
  type RetentionConfig,
  type RetentionRule,
} from '../archive/retention-rules.ts';

/** The `serve` flags of retention (docs/operations.md#retention). */
export const RETENTION_FLAG_OPTIONS = {
  'retain-for': { type: 'string' },
  retain: { type: 'string', multiple: true },
  'expired-ttl': { type: 'string' },
  'retention-interval': { type: 'string' },
} as const;

export const retentionFlagsUsage = `  --retain-for <duration>   delete a session (hot and cold) this long after its last event, e.g. 30d
                       (units ms, s, m, h, d, w; env SESSION_HUB_RETAIN_FOR; default: keep forever)
  --retain <prefix>=<duration>  the rule for the sessions whose id starts with <prefix>, e.g. acme/=90d or
                       vip/=never; repeatable, the longest matching prefix wins over --retain-for
                       (env SESSION_HUB_RETAIN, comma-separated rules)
  --expired-ttl <duration>  how long reads of an expired session answer SESSION_EXPIRED (410) before its id
                       reads as never written (env SESSION_HUB_EXPIRED_TTL; default 30d)
  --retention-interval <duration>  how often a node tries to sweep; one node sweeps at a time
                       (env SESSION_HUB_RETENTION_INTERVAL; default 1m)
`;

export interface RetentionFlagOptions {
  /** Undefined when no retention flag or variable is set (nothing ever expires). */
  readonly retention: RetentionConfig | undefined;
}

type Values = {
  readonly 'retain-for'?: string | undefined;
  readonly retain?: readonly string[] | undefined;
  readonly 'expired-ttl'?: string | undefined;
  readonly 'retention-interval'?: string | undefined;
};

/** These flags over their environment variables; `usage` makes the usage error of a bad one. */
export function parseRetentionFlags(
  values: Values,
  env: Readonly<Record<string, string | undefined>>,
  usage: (message: string) => Error,
): RetentionFlagOptions {
  const nonEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);
  const retainFor = values['retain-for'] ?? nonEmpty(env['SESSION_HUB_RETAIN_FOR']);
  const envRules = nonEmpty(env['SESSION_HUB_RETAIN'])
    ?.split(',')
    .map((rule) => rule.trim())
    .filter((rule) => rule !== '');
  const ruleTexts = values.retain ?? envRules ?? [];
  const expiredTtl = values['expired-ttl'] ?? nonEmpty(env['SESSION_HUB_EXPIRED_TTL']);
  const interval = values['retention-interval'] ?? nonEmpty(env['SESSION_HUB_RETENTION_INTERVAL']);
  try {
    const retainForMs = retainFor === undefined ? undefined : parseDuration(retainFor, '--retain-for');
    const rules: RetentionRule[] = ruleTexts.map((text) => parseRetentionRule(text));
    // Checks the rules together (one rule per prefix).
    const policy = new RetentionPolicy(retainForMs, rules);
    const expiredTtlMs = expiredTtl === undefined ? undefined : parseDuration(expiredTtl, '--expired-ttl');
    const sweepIntervalMs = interval === undefined ? undefined : parseDuration(interval, '--retention-interval');
    if (retainForMs === undefined && rules.length === 0) {
      if (expiredTtlMs !== undefined || sweepIntervalMs !== undefined) {
        throw new RetentionRuleError('--expired-ttl and --retention-interval need --retain-for or --retain');
      }
      return { retention: undefined };
    }
    return {
      retention: {
        ...(retainForMs === undefined ? {} : { retainForMs }),
        rules: policy.rules,
        ...(expiredTtlMs === undefined ? {} : { expiredTtlMs }),
        ...(sweepIntervalMs === undefined ? {} : { sweepIntervalMs }),
      },
    };
  } catch (error) {
    if (error instanceof RetentionRuleError) throw usage(error.message);
    throw error;
  }
}
