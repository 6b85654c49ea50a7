// `serve --retain-for / --retain / --expired-ttl / --retention-interval` and their variables: parsed into the hub's
// retention config, with one clear usage error for anything that cannot be taken; the rules' longest prefix wins.
import { describe, expect, it } from 'vitest';
import { parseDuration, parseRetentionRule, RetentionPolicy } from '../../server/archive/retention-rules.ts';
import { parseServeArgs, UsageError, type ServeOptions } from '../../server/cli/cli-args.ts';

const DAY = 86_400_000;

function serve(args: readonly string[], env: Record<string, string> = {}): ServeOptions {
  const options = parseServeArgs(args, env);
  if (options === 'help') throw new Error('help');
  return options;
}

function usageError(args: readonly string[], env: Record<string, string> = {}): string {
  try {
    serve(args, env);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`no usage error for ${args.join(' ')}`);
}

describe('retention flags', () => {
  it('no flag: no retention', () => {
    expect(serve([]).retention).toBeUndefined();
  });

  it('--retain-for, repeated --retain, --expired-ttl and --retention-interval', () => {
    const { retention } = serve([
      '--retain-for',
      '30d',
      '--retain',
      'acme/=90d',
      '--retain',
      'acme/vip/=never',
      '--expired-ttl',
      '2w',
      '--retention-interval',
      '90s',
    ]);
    expect(retention).toEqual({
      retainForMs: 30 * DAY,
      rules: [
        { prefix: 'acme/vip/', retainMs: undefined },
        { prefix: 'acme/', retainMs: 90 * DAY },
      ],
      expiredTtlMs: 14 * DAY,
      sweepIntervalMs: 90_000,
    });
  });

  it('the environment, flags first', () => {
    const env = {
      SESSION_HUB_RETAIN_FOR: '7d',
      SESSION_HUB_RETAIN: 'a/=1d, b/=12h',
      SESSION_HUB_EXPIRED_TTL: '1h',
      SESSION_HUB_RETENTION_INTERVAL: '5m',
    };
    expect(serve([], env).retention).toEqual({
      retainForMs: 7 * DAY,
      rules: [
        { prefix: 'a/', retainMs: DAY },
        { prefix: 'b/', retainMs: 12 * 3_600_000 },
      ],
      expiredTtlMs: 3_600_000,
      sweepIntervalMs: 300_000,
    });
    expect(serve(['--retain-for', '1d', '--retain', 'c/=2d'], env).retention).toMatchObject({
      retainForMs: DAY,
      rules: [{ prefix: 'c/', retainMs: 2 * DAY }],
    });
  });

  it('refuses what it cannot take, saying what is expected', () => {
    expect(usageError(['--retain-for', '30'])).toMatch(
      /invalid --retain-for "30": expected a positive integer and a unit/,
    );
    expect(usageError(['--retain-for', '0d'])).toMatch(/invalid --retain-for "0d"/);
    expect(usageError(['--retain-for', '1.5d'])).toMatch(/invalid --retain-for/);
    expect(usageError(['--retain', 'acme/90d'])).toMatch(/expected <session id prefix>=<duration>, e.g. acme\/=90d/);
    expect(usageError(['--retain', '=90d'])).toMatch(/invalid retention rule "=90d"/);
    expect(usageError(['--retain', 'a{b/=1d'])).toMatch(/invalid retention rule/);
    expect(usageError(['--retain', 'acme/=soon'])).toMatch(/invalid duration of the rule for "acme\/" "soon"/);
    expect(usageError(['--retain', 'a/=1d', '--retain', 'a/=2d'])).toMatch(/two retention rules for the prefix "a\/"/);
    expect(usageError(['--expired-ttl', '1d'])).toMatch(/--expired-ttl and --retention-interval need --retain-for/);
    expect(usageError(['--retain-for', '1d', '--retention-interval', 'often'])).toMatch(/invalid --retention-interval/);
    expect(usageError(['--retain-for', ''])).toMatch(/must not be empty/);
  });

  it('durations and the longest-prefix rule', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(() => parseDuration('101000d')).toThrow(/invalid duration/);
    expect(parseRetentionRule('a=b/=3d')).toEqual({ prefix: 'a=b/', retainMs: 3 * DAY });
    const policy = new RetentionPolicy(30 * DAY, [
      { prefix: 'acme/', retainMs: 90 * DAY },
      { prefix: 'acme/tmp/', retainMs: DAY },
      { prefix: 'keep/', retainMs: undefined },
    ]);
    expect(policy.retainMsOf('acme/tmp/1')).toBe(DAY);
    expect(policy.retainMsOf('acme/1')).toBe(90 * DAY);
    expect(policy.retainMsOf('keep/1')).toBeUndefined();
    expect(policy.retainMsOf('other')).toBe(30 * DAY);
    expect(new RetentionPolicy(undefined, [{ prefix: 'keep/', retainMs: undefined }]).active).toBe(false);
    expect(new RetentionPolicy(undefined, [{ prefix: 'a/', retainMs: DAY }]).retainMsOf('b/1')).toBeUndefined();
  });
});
