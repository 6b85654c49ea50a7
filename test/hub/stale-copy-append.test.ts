import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, validateLifecycle, type EventDraft } from '../../shared/index.ts';
import { useRedisHubs } from '../helpers/redis-hubs.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import type { TestHub } from '../helpers/hub.ts';

const opening: EventDraft[] = [
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'step/start', data: { turn: 1, step: 1 } },
];
/** An assistant message that cites the event at `source` (written through another node). */
const citing = (source: number): EventDraft => ({
  type: 'assistant/message',
  data: { turn: 1, step: 1, message: { role: 'assistant', content: `after ${source}` } },
  sourceEventSeqs: [source],
});

interface Appender {
  append(events: readonly EventDraft[]): Promise<{ firstSeq?: number; code?: string }>;
}

function httpAppender(node: TestHub, sessionId: string): Appender {
  return {
    async append(events) {
      const response = await fetch(`${node.url}/v1/sessions/${sessionId}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      const body = (await response.json()) as { firstSeq?: number; error?: { code: string } };
      return body.error === undefined ? { firstSeq: body.firstSeq! } : { code: body.error.code };
    },
  };
}

function wsAppender(client: RawHubClient, sessionId: string): Appender {
  return {
    async append(events) {
      const reply = await client.request({ type: 'append', sessionId, events });
      if (reply.type === 'ack') return { firstSeq: reply.firstSeq };
      return { code: reply.type === 'error' ? reply.code : reply.type };
    },
  };
}

/**
 * Three nodes on one Redis, nobody subscribed (so no node hears of the others' commits): they take turns, each
 * append citing the event the previous node just wrote. Every node's copy is stale when its turn comes; a valid
 * append must never be refused because of that (it refreshes from the store and validates again).
 */
describe('hub: a node with a stale copy never refuses a valid append', () => {
  const fixture = useRedisHubs('stale-copy:', 3);
  let sockets: RawHubClient[] = [];
  beforeAll(async () => {
    sockets = await Promise.all(fixture.cluster.nodes.map((node) => RawHubClient.connect(node.wsUrl)));
  });
  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
  });

  async function takeTurns(sessionId: string, appenders: readonly Appender[]): Promise<void> {
    expect(await appenders[0]!.append(opening)).toEqual({ firstSeq: 0 });
    let last = 1;
    for (let round = 0; round < 9; round++) {
      const appender = appenders[(round + 1) % appenders.length]!;
      expect(await appender.append([citing(last)])).toEqual({ firstSeq: last + 1 });
      last++;
    }
    const stored = await fixture.cluster.stores[0]!.read(sessionId, 0, 100);
    expect(stored).toHaveLength(last + 1);
    expect(() => Session.fromLog(stored)).not.toThrow();
    expect(validateLifecycle(stored)).toEqual([]);
  }

  it('over HTTP', async () => {
    await takeTurns(
      'turns-http',
      fixture.cluster.nodes.map((node) => httpAppender(node, 'turns-http')),
    );
  });

  it('over WebSocket', async () => {
    await takeTurns(
      'turns-ws',
      sockets.map((socket) => wsAppender(socket, 'turns-ws')),
    );
  });

  it('still refuses an append that is invalid at the real head', async () => {
    const [first, second] = fixture.cluster.nodes.map((node) => httpAppender(node, 'turns-bad'));
    expect(await first!.append(opening)).toEqual({ firstSeq: 0 });
    expect(await second!.append([citing(1)])).toEqual({ firstSeq: 2 });
    expect(await first!.append([citing(3)])).toEqual({ code: 'SURFACE_VIOLATION' });
    expect(await fixture.cluster.stores[0]!.read('turns-bad', 0, 100)).toHaveLength(3);
  });
});
