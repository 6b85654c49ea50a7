import { describe, expect, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { Emitter } from '../../client/emitter.ts';
import { it } from '../helpers/fixtures.ts';

type Events = { tick: [n: number] };

/** Wait until `errors` holds `count` entries (the rejections are reported on a later microtask). */
async function untilCount(errors: readonly unknown[], count: number): Promise<void> {
  await vi.waitFor(
    () => {
      if (errors.length < count) throw new Error(`${errors.length} of ${count} reported`);
    },
    { timeout: 20_000, interval: 10 },
  );
}

/** Wait until every message of `expected` was reported. */
async function untilReported(reported: readonly string[], expected: readonly string[]): Promise<void> {
  await vi.waitFor(() => expect(reported).toEqual(expect.arrayContaining([...expected])), {
    timeout: 20_000,
    interval: 10,
  });
}

// Issue 26, item 14: a listener returning a rejected promise (`on('event', async () => …)`) became an unhandled
// rejection, which ends a Node process (and fails the test through the process guard). It goes to
// `onListenerError`, like a throw, and the other listeners still run.
describe('async listeners: a rejected promise goes to onListenerError, never unhandled', () => {
  it('Emitter: on, once and a non-native thenable', async () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<Events>((error) => errors.push(error));
    const seen: number[] = [];
    emitter.on('tick', async (n) => {
      await Promise.resolve();
      throw new Error(`on ${n}`);
    });
    emitter.once('tick', (n) => Promise.reject(new Error(`once ${n}`)));
    const thenable = (n: number) => ({ then: (_ok: unknown, fail: (error: unknown) => void) => fail(`thenable ${n}`) });
    emitter.on('tick', (n) => thenable(n) as never);
    emitter.on('tick', (n) => void seen.push(n));
    emitter.emit('tick', 1);
    emitter.emit('tick', 2);
    expect(seen).toEqual([1, 2]);
    await untilCount(errors, 5);
    const messages = errors.map((error) => (error instanceof Error ? error.message : error));
    expect(messages.sort()).toEqual(['on 1', 'on 2', 'once 1', 'thenable 1', 'thenable 2']);
  });

  it('HubClient state, Subscription event, messages and live listeners over a real hub', async ({
    memoryHub: { hub },
  }) => {
    const reported: string[] = [];
    const onListenerError = (error: unknown): number => reported.push((error as Error).message);
    const client = new HubClient({ url: hub.wsUrl, onListenerError });
    const failing = (name: string) => async () => {
      await Promise.resolve();
      throw new Error(name);
    };
    try {
      client.on('state', failing('state'));
      const subscription = client.subscribe('async/1');
      subscription.on('event', failing('event'));
      subscription.on('messages', failing('messages'));
      subscription.on('live', failing('live'));
      await client.append('async/1', { type: 'user/message', data: { role: 'user', content: 'hi' } });
      await untilReported(reported, ['event', 'messages', 'live']);
      client.close(); // a state change, to `closed`
      await untilReported(reported, ['state']);
    } finally {
      client.close();
    }
  });
});
