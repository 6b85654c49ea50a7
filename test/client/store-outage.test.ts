import { describe, expect, onTestFinished } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { test } from '../helpers/fixtures.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

/** The file's Redis keeps an append-only file, fsynced on every write: a restart keeps every acknowledged event. */
const durable = test.extend('redisOptions', { scope: 'file' }, { appendOnly: true, appendFsync: 'always' as const });

describe('appends through a Redis outage (AOF on: nothing is lost)', () => {
  durable(
    'an append the hub cannot store yet is retried with its key and commits once Redis is back',
    async ({ redis, redisStore, redisHub }) => {
      const client = new HubClient({ url: redisHub.wsUrl, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
      onTestFinished(() => client.close());
      await client.append('outage/1', user('before'));
      await redis.kill();
      const timedOut = await client
        .append('outage/1', user('lost'), { timeoutMs: 300 })
        .catch((error: unknown) => error);
      expect(timedOut).toMatchObject({ code: 'TIMEOUT', details: { lastErrorCode: 'STORE_UNAVAILABLE' } });
      const during = client.append('outage/1', user('during'));
      await redis.restart();
      const [event] = await during;
      expect(event!.seq).toBe(1);
      const log = await redisStore.read('outage/1', 0, 10);
      expect(log.map((stored) => (stored.data as { content: string }).content)).toEqual(['before', 'during']);
    },
  );
});
