// Redaction on a 3-master Redis Cluster (issue #30 c): the redaction script touches the session's log, epoch,
// snapshot and epochs keys and publishes on its channel, all in the session's slot (one hash tag), so it runs
// atomically on the session's master for sessions on every master. Subscribers on the other node get the reset
// and the `redacted` notice and end with the store's log, byte for byte; redactions racing appends and each other
// from both nodes leave every requested seq redacted, with one audit per redaction that changed something.
import { describe, expect, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import { REDACTED_TEXT, REDACTION_AUDIT_TYPE, type RedactionAudit } from '../../shared/redaction.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { record, untilSeq } from '../client/support.ts';
import { clusterTest, sessionsOnEveryMaster } from './cluster-hubs.ts';

const it = clusterTest.extend('keyPrefix', { scope: 'file' }, 'red:');
const WAIT = { timeout: 15_000, interval: 20 };
const secret = (sessionId: string, n: number) => `secret-${n}-${sessionId}`;
const message = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

describe('redaction on a 3-master Redis Cluster', () => {
  it('redacts sessions on every master atomically; subscribers on the other node reset onto the redacted log', async ({
    clusterHubs,
  }) => {
    const { nodes, stores, cluster } = clusterHubs;
    const clients = nodes.map((node) => new HubClient({ url: node.wsUrl }));
    try {
      for (const sessionId of await sessionsOnEveryMaster(cluster, stores[0]!, 'redact')) {
        for (let n = 0; n < 4; n++) await clients[0]!.append(sessionId, message(secret(sessionId, n)));
        const watcher = clients[1]!.subscribe(sessionId);
        const resets = record<string>((listener) => watcher.on('reset', listener));
        const audits: [RedactionAudit, number][] = [];
        watcher.on('redacted', (audit, seq) => audits.push([audit, seq]));
        await untilSeq(watcher, 3);

        const reply = await clients[0]!.redact(sessionId, [1, 3], 'leaked');
        expect(reply).toMatchObject({ seqs: [1, 3], unchanged: [], cold: [], auditSeq: 4 });
        await untilSeq(watcher, 4);
        expect(resets).toEqual([reply.epoch]);
        expect(audits).toEqual([[expect.objectContaining({ seqs: [1, 3], reason: 'leaked' }), 4]]);
        const log = await stores[1]!.read(sessionId, 0, 100);
        expect(log.map((event) => event.type)).toEqual([...Array(4).fill('user/message'), REDACTION_AUDIT_TYPE]);
        expect(log[1]!.data).toMatchObject({ content: REDACTED_TEXT });
        expect(log[3]!.data).toMatchObject({ content: REDACTED_TEXT });
        expect(log[2]!.data).toMatchObject({ content: secret(sessionId, 2) });
        expect(Buffer.from(encodeMsgpackValue(watcher.events)).equals(Buffer.from(encodeMsgpackValue(log)))).toBe(true);
        // A retry changes nothing and appends no audit.
        expect(await clients[1]!.redact(sessionId, [1, 3], 'leaked')).toMatchObject({
          seqs: [],
          unchanged: [1, 3],
          auditSeq: null,
        });
        expect(await stores[0]!.head(sessionId)).toMatchObject({ headSeq: 4, epoch: reply.epoch });
      }
    } finally {
      for (const client of clients) client.close();
    }
  });

  it('redactions racing appends and each other from both nodes: every seq redacted, one audit per change', async ({
    clusterHubs,
  }) => {
    const { nodes, stores } = clusterHubs;
    const clients = nodes.map((node) => new HubClient({ url: node.wsUrl }));
    const sessionId = 'race';
    try {
      for (let n = 0; n < 10; n++) await clients[0]!.append(sessionId, message(secret(sessionId, n)));
      const watcher = clients[1]!.subscribe(sessionId);
      await untilSeq(watcher, 9);
      let writing = true;
      const writes = (async () => {
        for (let n = 100; writing; n++) await clients[n % 2]!.append(sessionId, message(`plain ${n}`));
      })();
      const targets = [
        [0, 2, 4],
        [4, 6, 8],
        [1, 3],
        [3, 5, 7, 9],
      ];
      const replies = await Promise.all(
        targets.map((seqs, index) => clients[index % 2]!.redact(sessionId, seqs, `race ${index}`)),
      );
      writing = false;
      await writes;
      const log = await stores[0]!.read(sessionId, 0, 10_000);
      for (let seq = 0; seq < 10; seq++) expect(log[seq]!.data).toMatchObject({ content: REDACTED_TEXT });
      const audits = log.filter((event) => event.type === REDACTION_AUDIT_TYPE);
      const changing = replies.filter((reply) => reply.seqs.length > 0);
      expect(audits.map((event) => event.seq).sort((a, b) => a - b)).toEqual(
        changing.map((reply) => reply.auditSeq).sort((a, b) => a! - b!),
      );
      // Each seq was changed by exactly one of them; the others reported it unchanged.
      expect(replies.flatMap((reply) => reply.seqs).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index));
      await vi.waitFor(
        () =>
          expect(Buffer.from(encodeMsgpackValue(watcher.events)).equals(Buffer.from(encodeMsgpackValue(log)))).toBe(
            true,
          ),
        WAIT,
      );
    } finally {
      for (const client of clients) client.close();
    }
  });

  it('with waitReplicas, a redaction waits on its session’s own master (pipelined with its WAIT)', async ({
    clusterHubs,
    keyPrefix,
  }) => {
    const { cluster } = clusterHubs;
    const store = await RedisStore.open({ cluster: cluster.urls, keyPrefix, waitReplicas: 1 });
    try {
      for (const sessionId of await sessionsOnEveryMaster(cluster, store, 'waited')) {
        const events = [message(secret(sessionId, 0)), message('plain')];
        expect(await store.commit({ sessionId, expectedSeq: 0, events })).toMatchObject({ status: 'committed' });
        expect(await store.redactions.redact({ sessionId, seqs: [0], reason: 'r', by: 'admin' })).toMatchObject({
          status: 'redacted',
          seqs: [0],
          auditSeq: 2,
        });
        expect((await store.read(sessionId, 0, 10))[0]!.data).toMatchObject({ content: REDACTED_TEXT });
      }
    } finally {
      await store.close();
    }
  });
});
