// What stays on a Redis server's disk after a redaction, and `session-hub redis-purge` removing it: a real
// redis-server with appendonly yes in its own dir, its AOF and RDB files searched byte for byte.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { test } from '../helpers/fixtures.ts';
import { runCli } from '../cli/run-cli.ts';

const SECRET = 'sk-proj-PURGEME0123456789abcdef';

/** Uncompressed RDB (also the AOF's RDB preamble), so that a string in it is its bytes. */
const durable = test
  .extend('redisStoreOptions', { scope: 'file' }, { onError: (): void => undefined })
  .extend(
    'redisOptions',
    { scope: 'file' },
    { appendOnly: true, appendFsync: 'always' as const, extraArgs: ['--rdbcompression', 'no'] },
  );

/** Every file under `dir` (the AOF directory's base, increment and manifest files, the RDB file). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function filesHolding(dir: string, text: string): string[] {
  const needle = Buffer.from(text);
  return filesUnder(dir).filter((path) => readFileSync(path).includes(needle));
}

describe('Redis persistence after a redaction', () => {
  durable(
    'keeps the old bytes in the AOF and RDB until redis-purge rewrites them',
    async ({ redis, openRedisStore, admin }) => {
      const store = await openRedisStore();
      const sessionId = 'purge/1';
      const result = await store.commit({
        sessionId,
        expectedSeq: 0,
        events: [
          { type: 'user/message', data: { role: 'user', content: `use ${SECRET}` }, surfaceOp: 'append' },
          { type: 'app/note', data: { n: 1 } },
        ],
      });
      expect(result.status).toBe('committed');
      await admin.call('SAVE'); // an RDB file from before the redaction, as a periodic save would leave
      expect(filesHolding(redis.dir, SECRET).length).toBeGreaterThanOrEqual(2); // the AOF and the RDB file

      const redacted = await store.redactions.redact({ sessionId, seqs: [0], reason: 'leak', by: 'ops' });
      expect(redacted).toMatchObject({ status: 'redacted', seqs: [0] });
      expect(JSON.stringify(await store.read(sessionId, 0, 10))).not.toContain(SECRET);
      // No read returns it, but the files still hold it: the AOF logged the original XADD, the RDB is older.
      expect(filesHolding(redis.dir, SECRET).length).toBeGreaterThanOrEqual(2);

      const purge = await runCli(['redis-purge', '--redis', redis.url]);
      expect(purge.stderr).toContain('AOF rewritten, RDB saved');
      expect(purge.code).toBe(0);
      expect(filesHolding(redis.dir, SECRET)).toEqual([]);
      // What the files hold now is the redacted log: the audit event and the placeholder are there.
      expect(filesHolding(redis.dir, 'audit/redaction').length).toBeGreaterThanOrEqual(2);
      // And Redis loads them: after a restart the redacted log is what is read.
      await redis.kill();
      await redis.restart();
      const reopened = await openRedisStore();
      const log = await reopened.read(sessionId, 0, 10);
      expect(log.map((event) => event.type)).toEqual(['user/message', 'app/note', 'audit/redaction']);
      expect(JSON.stringify(log)).not.toContain(SECRET);
    },
  );

  test('redis-purge refuses no server and reports an unreachable one', async () => {
    expect((await runCli(['redis-purge'])).code).toBe(2);
    const down = await runCli(['redis-purge', '--redis', 'redis://user:hunter2@127.0.0.1:1', '--timeout', '2']);
    expect(down.code).toBe(1);
    expect(down.stderr).not.toContain('hunter2');
  });
});
