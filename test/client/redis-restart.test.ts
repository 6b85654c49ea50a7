import { describe, expect, onTestFinished, vi } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import type { Subscription } from '../../client/index.ts';
import { deriveMessages } from '../../shared/index.ts';
import { test } from '../helpers/fixtures.ts';
import { untilSeq } from './support.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

/** The file's Redis keeps nothing on disk: a restart loses every key. */
const volatile = test.extend('redisOptions', { scope: 'file' }, { appendOnly: false });

describe('Redis restarted without persistence', () => {
  volatile(
    'watchers get reset, clear their copy, and rebuild the new log from seq 0',
    async ({ redis, redisStore, redisHub }) => {
      const sessionId = 'lost/1';
      const connect = (): HubClient => {
        const client = new HubClient({ url: redisHub.wsUrl, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
        onTestFinished(() => client.close());
        return client;
      };
      const writerClient = connect();
      for (let index = 0; index < 5; index++) await writerClient.append(sessionId, user(`old ${index}`));
      const watchers: Subscription[] = [connect().subscribe(sessionId), connect().subscribe(sessionId)];
      await Promise.all(watchers.map((watcher) => untilSeq(watcher, 4)));
      const oldEpoch = watchers[0]!.epoch;
      const resets = watchers.map((watcher) => {
        const epochs: string[] = [];
        watcher.on('reset', (epoch) => epochs.push(epoch));
        return epochs;
      });

      await redis.restart(); // SIGKILL + start: every key is gone
      // The SDK retries appends the hub cannot take yet (STORE_UNAVAILABLE, same key) until Redis is back.
      const writer = await AgentWriter.attach(writerClient, sessionId);
      await writer.userMessage('new 0');
      await writer.userMessage('new 1');
      await writer.startTurn();
      await writer.endTurn('completed');
      await writer.flush();
      const log = await redisStore.read(sessionId, 0, 100);
      expect(log.map((event) => event.seq)).toEqual([0, 1, 2, 3]);

      await vi.waitFor(
        () => {
          for (const watcher of watchers) expect(watcher.events).toEqual(log);
        },
        { timeout: 20_000, interval: 50 },
      );
      for (const [index, watcher] of watchers.entries()) {
        expect(resets[index]!.length).toBeGreaterThanOrEqual(1);
        expect(watcher.epoch).not.toBe(oldEpoch);
        expect(watcher.messages).toEqual(deriveMessages(log));
        expect(watcher.messages.map((message) => message.content)).toEqual(['new 0', 'new 1']);
      }
    },
  );
});
