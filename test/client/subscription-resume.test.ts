import { describe, expect, it, vi } from 'vitest';
import type { SessionEvent } from '../../shared/events.ts';
import type { ClientMessage, ServerMessage } from '../../shared/protocol.ts';
import { RequestTracker } from '../../client/requests.ts';
import { Subscription } from '../../client/subscription.ts';
import type { SubscriptionLink } from '../../client/subscription.ts';

// The subscription's resume logic, driven message by message (the wire is exercised by the hub tests).

const user = (seq: number): SessionEvent =>
  ({
    seq,
    type: 'user/message',
    time: 1,
    data: { role: 'user', content: `m${seq}` },
    surfaceOp: 'append',
  }) as SessionEvent;

function harness(fromSeq = 0) {
  const requests = new RequestTracker();
  const sent: ClientMessage[] = [];
  let connected = true;
  const link: SubscriptionLink = {
    requests,
    onListenerError: (error) => {
      throw error;
    },
    isConnected: () => connected,
    send: (message) => {
      if (connected) sent.push(message);
      return connected;
    },
    retryDelay: () => 0,
    detach: () => undefined,
  };
  const subscription = new Subscription(link, 's', { fromSeq, epoch: undefined, events: [] });
  const seen: number[] = [];
  const errors: string[] = [];
  subscription.on('event', (event) => seen.push(event.seq));
  subscription.on('error', (error) => errors.push(error.code));
  subscription.connected();
  const lastSubscribe = () => sent.filter((message) => message.type === 'subscribe').at(-1)!;
  const reply = (message: ServerMessage) => {
    if ('id' in message && message.id !== undefined && requests.settle(message.id, message)) return;
    subscription.handle(message);
  };
  const subscribed = (epoch: string, headSeq: number) =>
    reply({ type: 'subscribed', id: lastSubscribe().id, sessionId: 's', epoch, headSeq });
  const events = (...seqs: number[]) => reply({ type: 'events', sessionId: 's', events: seqs.map(user) });
  return {
    subscription,
    sent,
    seen,
    errors,
    lastSubscribe,
    reply,
    subscribed,
    events,
    disconnect: () => {
      connected = false;
      requests.loseAll();
      subscription.disconnected();
    },
    reconnect: () => {
      connected = true;
      subscription.connected();
    },
  };
}

describe('Subscription resume logic', () => {
  it('drops duplicates and resumes from lastSeq + 1 with its epoch after a reconnect', () => {
    const h = harness();
    expect(h.lastSubscribe()).toMatchObject({ sessionId: 's', fromSeq: 0 });
    h.subscribed('e1', 2);
    h.events(0, 1);
    h.events(1, 2);
    h.reply({ type: 'live', sessionId: 's', headSeq: 2 });
    expect(h.subscription.isLive).toBe(true);
    h.disconnect();
    expect(h.subscription.state).toBe('pending');
    h.events(3); // a stale frame after the drop is ignored
    h.reconnect();
    expect(h.lastSubscribe()).toMatchObject({ fromSeq: 3, epoch: 'e1' });
    h.subscribed('e1', 3);
    h.events(2, 3);
    expect(h.seen).toEqual([0, 1, 2, 3]);
  });

  it('a gap re-subscribes from lastSeq + 1 and ignores frames until the new subscription answers', () => {
    const h = harness();
    h.subscribed('e1', 5);
    h.events(0, 1);
    h.events(4, 5); // 2 and 3 are missing
    const sent = h.sent.map((message) => message.type);
    expect(sent.slice(-2)).toEqual(['unsubscribe', 'subscribe']);
    expect(h.lastSubscribe()).toMatchObject({ fromSeq: 2, epoch: 'e1' });
    h.events(5); // still from the old subscription
    h.subscribed('e1', 5);
    h.events(2, 3, 4, 5);
    h.reply({ type: 'live', sessionId: 's', headSeq: 5 });
    expect(h.seen).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a live head past lastSeq is a gap too', () => {
    const h = harness();
    h.subscribed('e1', 3);
    h.events(0, 1);
    h.reply({ type: 'live', sessionId: 's', headSeq: 3 });
    expect(h.subscription.isLive).toBe(false);
    expect(h.lastSubscribe()).toMatchObject({ fromSeq: 2 });
  });

  it('a new epoch clears the copy, emits reset once, and rebuilds from seq 0', () => {
    const h = harness(1);
    const resets: string[] = [];
    h.subscription.on('reset', (epoch) => resets.push(epoch));
    h.subscribed('e1', 2);
    h.events(1, 2);
    h.disconnect();
    h.reconnect();
    h.subscribed('e2', 0); // the data was lost: the hub answers with another epoch...
    h.reply({ type: 'reset', sessionId: 's', epoch: 'e2', reason: 'epoch changed' }); // ...then says reset
    h.events(0);
    h.reply({ type: 'live', sessionId: 's', headSeq: 0 });
    expect(resets).toEqual(['e2']);
    expect(h.subscription.events.map((event) => event.seq)).toEqual([0]);
    expect(h.subscription.messagesComplete).toBe(true);
    expect(h.subscription.messages).toEqual([{ role: 'user', content: 'm0' }]);
    expect(h.seen).toEqual([1, 2, 0]);
  });

  it('a transient error retries; a final one closes with the error', async () => {
    const h = harness();
    h.reply({ type: 'error', id: h.lastSubscribe().id, code: 'STORE_UNAVAILABLE', message: 'down', sessionId: 's' });
    await vi.waitFor(() => expect(h.sent.filter((message) => message.type === 'subscribe')).toHaveLength(2));
    h.reply({ type: 'error', id: h.lastSubscribe().id, code: 'FORBIDDEN', message: 'no', sessionId: 's' });
    expect(h.subscription.state).toBe('closed');
    await expect(h.subscription.whenLive()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(h.errors).toEqual(['STORE_UNAVAILABLE', 'FORBIDDEN']);
  });
});
