import { describe, expect, it } from 'vitest';
import { parseServeArgs, serveUsage } from '../../server/cli/cli-args.ts';

describe('session-hub serve: Redis Cluster and Sentinel arguments', () => {
  it('reads --redis-cluster (or SESSION_HUB_REDIS_CLUSTER) as a list of seed URLs', () => {
    expect(parseServeArgs(['--redis-cluster', 'redis://a:7000, redis://:pw@b:7001'], {})).toMatchObject({
      redisUrl: undefined,
      redisCluster: ['redis://a:7000', 'redis://:pw@b:7001'],
    });
    expect(parseServeArgs([], { SESSION_HUB_REDIS_CLUSTER: 'redis://c:7000' })).toMatchObject({
      redisCluster: ['redis://c:7000'],
    });
  });

  it('reads --redis-sentinels with --redis-sentinel-name, flags or environment', () => {
    expect(
      parseServeArgs(['--redis-sentinels', 'h1:26379,h2:26379', '--redis-sentinel-name', 'main'], {}),
    ).toMatchObject({ redisSentinels: ['h1:26379', 'h2:26379'], redisSentinelName: 'main' });
    const env = { SESSION_HUB_REDIS_SENTINELS: 'h:26379', SESSION_HUB_REDIS_SENTINEL_NAME: 'm' };
    expect(parseServeArgs([], env)).toMatchObject({ redisSentinels: ['h:26379'], redisSentinelName: 'm' });
  });

  it('refuses two Redis targets at once, sentinels without a name, and an empty list', () => {
    expect(() => parseServeArgs(['--redis', 'redis://x:1', '--redis-cluster', 'redis://y:2'], {})).toThrow(
      'use one of --redis, --redis-cluster and --redis-sentinels',
    );
    expect(() => parseServeArgs(['--redis-cluster', 'redis://y:2'], { REDIS_URL: 'redis://x:1' })).toThrow(
      'use one of',
    );
    expect(() => parseServeArgs(['--redis-sentinels', 'h:26379'], {})).toThrow('go together');
    expect(() => parseServeArgs(['--redis-sentinel-name', 'm'], {})).toThrow('go together');
    expect(() => parseServeArgs(['--redis-cluster', ' , '], {})).toThrow('at least one address');
  });

  it('reads --redis-wait-replicas (0 to 100), only with a Redis', () => {
    expect(parseServeArgs(['--redis', 'redis://x:1', '--redis-wait-replicas', '2'], {})).toMatchObject({
      redisWaitReplicas: 2,
    });
    expect(parseServeArgs(['--redis', 'redis://x:1'], {})).toMatchObject({ redisWaitReplicas: undefined });
    for (const bad of ['-1', '1.5', 'two', '101']) {
      expect(() => parseServeArgs(['--redis', 'redis://x:1', `--redis-wait-replicas=${bad}`], {})).toThrow(
        'invalid --redis-wait-replicas',
      );
    }
    expect(() => parseServeArgs(['--redis-wait-replicas', '1'], {})).toThrow('needs a Redis');
  });

  it('reads --no-redis-raw-reads (or SESSION_HUB_REDIS_RAW_READS=0): raw reads are on by default', () => {
    expect(parseServeArgs(['--redis', 'redis://x:1'], {})).toMatchObject({ redisRawReads: true });
    expect(parseServeArgs(['--redis', 'redis://x:1', '--no-redis-raw-reads'], {})).toMatchObject({
      redisRawReads: false,
    });
    for (const off of ['0', 'false', 'no', 'off']) {
      expect(parseServeArgs(['--redis', 'redis://x:1'], { SESSION_HUB_REDIS_RAW_READS: off })).toMatchObject({
        redisRawReads: false,
      });
    }
  });

  it('documents the flags in --help', () => {
    for (const flag of [
      '--redis-cluster',
      '--redis-sentinels',
      '--redis-sentinel-name',
      '--redis-wait-replicas',
      '--redis-sentinel-password',
      '--redis-master-password',
      '--no-redis-raw-reads',
    ]) {
      expect(serveUsage).toContain(flag);
    }
  });
});
