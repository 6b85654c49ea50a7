import { describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import type { SessionEvent, Subscription, SubscriptionSnapshot } from '../../client/index.ts';
import { deriveMessages } from '../../shared/index.ts';
import { storeEngines } from '../helpers/engines.ts';
import { thrown } from '../helpers/thrown.ts';
import { useEngineHub } from './engine-hub.ts';
import { untilSeq } from './support.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } }) as const;
const assistant = (content: string) =>
  [
    { type: 'turn/start', data: { turn: 1 } },
    { type: 'step/start', data: { turn: 1, step: 1 } },
    { type: 'assistant/message', data: { turn: 1, step: 1, message: { role: 'assistant', content } } },
    { type: 'step/end', data: { turn: 1, step: 1 } },
    { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
  ] as const;

/** Everything a subscription emits, in order: event seqs, resets, and whether messages were complete then. */
function recorder(subscription: Subscription): { seqs: number[]; resets: string[]; timeline: string[] } {
  const seqs: number[] = [];
  const resets: string[] = [];
  const timeline: string[] = [];
  subscription.on('event', (event) => {
    seqs.push(event.seq);
    timeline.push(`${event.seq}:${JSON.stringify(event.data)}`);
  });
  subscription.on('reset', (epoch) => {
    resets.push(epoch);
    timeline.push('reset');
  });
  return { seqs, resets, timeline };
}

/** A page reload: the snapshot goes through structured-clone storage (IndexedDB) and comes back unfrozen. */
function reloaded(snapshot: SubscriptionSnapshot): SubscriptionSnapshot {
  return structuredClone(snapshot) as SubscriptionSnapshot;
}

describe.each(storeEngines('snap:'))('resuming a subscription from a snapshot on the $name engine', ({ open }) => {
  const engine = useEngineHub(open);
  const client = (): HubClient => new HubClient({ url: engine.hub.wsUrl });
  const log = (sessionId: string): Promise<readonly SessionEvent[]> => engine.store.read(sessionId, 0, 10_000);

  it('continues after the snapshot with messages equal to deriveMessages of the whole log', async () => {
    const sessionId = 'snap/reload';
    const writer = client();
    const page = client();
    try {
      await writer.append(sessionId, [{ type: 'system/message', data: { content: 'be brief' } }, user('hi')]);
      await writer.append(sessionId, [...assistant('hello')]);
      const before = page.subscribe(sessionId);
      await before.whenLive();
      const snapshot = reloaded(before.snapshot());
      expect(snapshot).toMatchObject({ sessionId, epoch: before.epoch, events: before.events });
      page.close(); // the page goes away

      await writer.append(sessionId, [user('and now?')]);
      const head = (await log(sessionId)).at(-1)!.seq;
      const reopened = client();
      try {
        const after = reopened.subscribe(sessionId, { resume: snapshot });
        // Seeded at once: the kept messages are there before the hub answers.
        expect(after.messagesComplete).toBe(true);
        expect(after.messages).toEqual(deriveMessages(snapshot.events));
        const seen = recorder(after);
        await after.whenLive();
        await untilSeq(after, head);
        const whole = await log(sessionId);
        expect(after.events).toEqual(whole);
        expect(after.messages).toEqual(deriveMessages(whole));
        // Only what the snapshot lacked came over the wire.
        expect(seen.seqs).toEqual([head]);
        expect(seen.resets).toEqual([]);
      } finally {
        reopened.close();
      }
    } finally {
      writer.close();
      page.close();
    }
  });

  it('a session deleted and rewritten meanwhile: reset and a rebuild from seq 0, never a mix', async () => {
    const sessionId = 'snap/rewritten';
    const writer = client();
    try {
      await writer.append(sessionId, [user('old 0'), user('old 1'), user('old 2'), user('old 3'), user('old 4')]);
      const page = client();
      const before = page.subscribe(sessionId);
      await before.whenLive();
      const snapshot = reloaded(before.snapshot());
      page.close();

      await engine.store.deleteSession(sessionId);
      await writer.append(sessionId, [user('new 0'), user('new 1'), user('new 2'), user('new 3')]);
      await writer.append(sessionId, [user('new 4'), user('new 5'), user('new 6')]);
      const rewritten = await log(sessionId);

      for (const options of [{ resume: snapshot }, { fromSeq: 5, epoch: snapshot.epoch! }]) {
        const reopened = client();
        try {
          const after = reopened.subscribe(sessionId, options);
          const seen = recorder(after);
          await untilSeq(after, rewritten.at(-1)!.seq);
          await after.whenLive();
          expect(seen.resets).toHaveLength(1);
          expect(seen.resets[0]).not.toBe(snapshot.epoch);
          expect(after.epoch).toBe(seen.resets[0]);
          // Nothing of the old history after the reset: every event seen is the new log's, from seq 0.
          expect(seen.timeline.slice(seen.timeline.indexOf('reset') + 1)).toEqual(
            rewritten.map((event) => `${event.seq}:${JSON.stringify(event.data)}`),
          );
          expect(after.events).toEqual(rewritten);
          expect(after.messages).toEqual(deriveMessages(rewritten));
          expect(after.messages.map((message) => (message as { content: string }).content).join()).not.toMatch(/old/);
        } finally {
          reopened.close();
        }
      }
    } finally {
      writer.close();
    }
  });

  it('a session deleted and not rewritten: reset, and an empty copy', async () => {
    const sessionId = 'snap/deleted';
    const writer = client();
    const page = client();
    try {
      await writer.append(sessionId, [user('a'), user('b')]);
      const before = page.subscribe(sessionId);
      await before.whenLive();
      const snapshot = reloaded(before.snapshot());
      page.close();
      await engine.store.deleteSession(sessionId);

      const reopened = client();
      try {
        const after = reopened.subscribe(sessionId, { resume: snapshot });
        const seen = recorder(after);
        await after.whenLive();
        expect(seen.resets.length).toBeGreaterThanOrEqual(1);
        expect(after.events).toEqual([]);
        expect(after.messages).toEqual([]);
      } finally {
        reopened.close();
      }
    } finally {
      writer.close();
      page.close();
    }
  });
});

describe('subscribe options are checked at run time', () => {
  const engine = useEngineHub(storeEngines('snap-opts:')[0]!.open);

  it('refuses unknown options, mixed resume options, foreign and invalid snapshots with BAD_REQUEST', () => {
    const client = new HubClient({ url: engine.hub.wsUrl });
    try {
      const snapshot = { sessionId: 's', epoch: 'e', events: [] };
      const event = (seq: number, data: unknown) => ({ seq, type: 'user/message', time: 1, data, surfaceOp: 'append' });
      const cases: unknown[] = [
        { formSeq: 3 },
        { fromSeq: -1 },
        { fromSeq: 1.5 },
        { epoch: '' },
        { epoch: 7 },
        'fromSeq',
        { resume: snapshot, fromSeq: 0 },
        { resume: { ...snapshot, sessionId: 'other' } },
        { resume: { ...snapshot, events: 'none' } },
        { resume: { ...snapshot, epoch: null, events: [event(0, { role: 'user', content: 'x' })] } },
        { resume: { ...snapshot, events: [event(0, { role: 'user' })] } },
        { resume: { ...snapshot, events: [event(0, { role: 'user', content: 'x' }), event(2, {})] } },
      ];
      for (const options of cases) {
        const error = thrown(() => client.subscribe('s', options as never));
        expect([options, error]).toMatchObject([options, { code: 'BAD_REQUEST' }]);
        expect(client.subscriptionOf('s')).toBeUndefined();
      }
    } finally {
      client.close();
    }
  });
});
