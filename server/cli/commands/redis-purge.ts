import { Redis } from 'ioredis';
import { purgeRedisPersistence } from '../../store/redis/redis-purge.ts';
import { CliFailure, defineCommand, UsageError } from '../command.ts';
import { redactUrl } from '../redact-url.ts';

const usage = `Usage: session-hub redis-purge --redis <url> [--redis <url> ...] [--timeout <seconds>]

After a redaction or a deletion, Redis' persistence files still hold the old bytes: the append-only file keeps
every write until it is rewritten, and the RDB file is the last snapshot. This rewrites the AOF (BGREWRITEAOF,
when appendonly is on; Redis deletes the old files) and writes the RDB file again (BGSAVE) on each server given,
waiting until each job has finished and checking that it succeeded. Replicas keep their own files: name every
master and replica. Backups and copies made before are not touched (docs/security.md#redaction).

Options:
  --redis <url>        a Redis server (redis://[user:pass@]host:port); repeat for replicas and cluster nodes
  --timeout <seconds>  how long each job may take (default 600)
  -h, --help           show this help

Example:
  session-hub redis-purge --redis redis://10.0.0.1:6379 --redis redis://10.0.0.2:6379
`;

export const redisPurgeCommand = defineCommand({
  name: 'redis-purge',
  summary: 'rewrite Redis AOF and RDB files so redacted bytes leave the disk',
  usage,
  options: { redis: { type: 'string', multiple: true }, timeout: { type: 'string' } },
  async run({ values }, io) {
    const urls = values.redis ?? [];
    if (urls.length === 0) throw new UsageError('name at least one --redis <url>');
    const seconds = values.timeout === undefined ? 600 : Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400) {
      throw new UsageError('--timeout must be a number of seconds from 1 to 86400');
    }
    for (const url of urls) {
      const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5000 });
      redis.on('error', () => undefined); // reported through the failing command below
      try {
        await redis.connect();
        const report = await purgeRedisPersistence(redis, { timeoutMs: seconds * 1000 });
        const aof = report.aofRewritten ? 'AOF rewritten, ' : 'no AOF, ';
        io.stderr.write(`${redactUrl(url)}: ${aof}RDB saved\n`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new CliFailure(`${redactUrl(url)}: ${message}`, { cause: error });
      } finally {
        redis.disconnect();
      }
    }
    return 0;
  },
});
