import { describe, expect, it } from 'vitest';
import { parseServeArgs, serveUsage, UsageError } from '../../server/cli/cli-args.ts';

describe('session-hub serve: arguments', () => {
  it('uses the defaults: port 8080, 127.0.0.1, memory engine, info logs', () => {
    expect(parseServeArgs([], {})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      redisUrl: undefined,
      keyPrefix: undefined,
      logLevel: 'info',
      nodeName: undefined,
      auth: { mode: 'open' },
      metricsHost: '127.0.0.1',
      limits: {},
      lifecycle: 'enforce',
      inspector: true,
      redisRawReads: true,
      snapshots: {},
      secrets: { mode: 'off', patterns: [] },
    });
  });

  it('turns the inspector off and sets the presence TTL and the cache budget, from flags or env', () => {
    expect(parseServeArgs(['--no-inspector', '--presence-ttl-ms', '2000'], {})).toMatchObject({
      inspector: false,
      presenceTtlMs: 2000,
    });
    expect(parseServeArgs([], { SESSION_HUB_INSPECTOR: '0', SESSION_HUB_PRESENCE_TTL_MS: '500' })).toMatchObject({
      inspector: false,
      presenceTtlMs: 500,
    });
    expect(() => parseServeArgs(['--presence-ttl-ms', '5'], {})).toThrow(/presence-ttl-ms/);
    expect(parseServeArgs(['--cache-bytes', '1048576'], {})).toMatchObject({ cacheBytes: 1048576 });
    expect(parseServeArgs([], { SESSION_HUB_CACHE_BYTES: '2048' })).toMatchObject({ cacheBytes: 2048 });
    expect(() => parseServeArgs(['--cache-bytes', 'lots'], {})).toThrow(/cache-bytes/);
  });

  it('reads PORT, HOST, REDIS_URL, KEY_PREFIX, LOG_LEVEL, NODE_NAME, and lets flags win', () => {
    const env = {
      PORT: '9000',
      HOST: '0.0.0.0',
      REDIS_URL: 'redis://r:6379',
      KEY_PREFIX: 'env:',
      LOG_LEVEL: 'warn',
      NODE_NAME: 'n1',
    };
    expect(parseServeArgs([], env)).toEqual({
      port: 9000,
      host: '0.0.0.0',
      redisUrl: 'redis://r:6379',
      keyPrefix: 'env:',
      logLevel: 'warn',
      nodeName: 'n1',
      auth: { mode: 'open' },
      metricsHost: '0.0.0.0',
      limits: {},
      lifecycle: 'enforce',
      inspector: true,
      redisRawReads: true,
      snapshots: {},
      secrets: { mode: 'off', patterns: [] },
    });
    expect(
      parseServeArgs(['--port', '0', '--redis', 'redis://x:1', '--key-prefix', 'p:', '--log-level', 'debug'], env),
    ).toMatchObject({ port: 0, redisUrl: 'redis://x:1', keyPrefix: 'p:', logLevel: 'debug', host: '0.0.0.0' });
  });

  it('takes --lifecycle enforce|off (env SESSION_HUB_LIFECYCLE), nothing else', () => {
    expect(parseServeArgs(['--lifecycle', 'off'], {})).toMatchObject({ lifecycle: 'off' });
    expect(parseServeArgs([], { SESSION_HUB_LIFECYCLE: 'off' })).toMatchObject({ lifecycle: 'off' });
    expect(parseServeArgs(['--lifecycle=enforce'], { SESSION_HUB_LIFECYCLE: 'off' })).toMatchObject({
      lifecycle: 'enforce',
    });
    expect(() => parseServeArgs(['--lifecycle', 'lenient'], {})).toThrow(/invalid lifecycle mode "lenient"/);
    expect(serveUsage).toMatch(/--lifecycle <mode>/);
  });

  it('answers --help and refuses unknown flags and bad ports', () => {
    expect(parseServeArgs(['--help'], {})).toBe('help');
    expect(parseServeArgs(['-h'], {})).toBe('help');
    expect(serveUsage).toMatch(/--redis <url>/);
    expect(() => parseServeArgs(['--bogus'], {})).toThrow(UsageError);
    expect(() => parseServeArgs(['--port', 'http'], {})).toThrow(/invalid port/);
    expect(() => parseServeArgs([], { PORT: '70000' })).toThrow(/invalid port/);
    expect(() => parseServeArgs(['--log-level', 'verbose'], {})).toThrow(/invalid log level "verbose"/);
    expect(() => parseServeArgs([], { LOG_LEVEL: 'INFO' })).toThrow(UsageError);
    for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']) {
      expect(parseServeArgs(['--log-level', level], {})).toMatchObject({ logLevel: level });
    }
  });

  it('refuses an empty flag value (--host "" would bind every interface) but lets an empty env value count as unset', () => {
    for (const flag of ['--host', '--redis', '--key-prefix', '--node-name', '--port', '--log-level', '--auth-secret']) {
      expect(() => parseServeArgs([flag, ''], {}), flag).toThrow(new UsageError(`${flag} must not be empty`));
      expect(() => parseServeArgs([`${flag}=`], {}), `${flag}=`).toThrow(UsageError);
    }
    expect(parseServeArgs([], { HOST: '', REDIS_URL: '', KEY_PREFIX: '', NODE_NAME: '' })).toMatchObject({
      host: '127.0.0.1',
      redisUrl: undefined,
      keyPrefix: undefined,
      nodeName: undefined,
    });
  });
});
