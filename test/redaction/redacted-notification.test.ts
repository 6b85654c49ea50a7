// The `redacted` notification (issue #30) on two hub nodes sharing one real redis-server: what a raw protocol
// subscriber on the other node receives (a `reset`, then the redacted log ending with the audit that names the
// seqs: no frame of another type), and what the SDK makes of it (`redacted` naming the seqs; the React hooks' view
// re-rendered with the placeholders), for a redaction by request and for scanning at append (no reset).
import { afterAll, describe, expect, vi } from 'vitest';
import type { Subscription } from '../../client/index.ts';
import { sessionView } from '../../client/session-store.ts';
import { deriveMessages, type SessionEvent } from '../../shared/index.ts';
import type { ServerMessage } from '../../shared/protocol.ts';
import { REDACTED_TEXT, REDACTION_AUDIT_TYPE, redactedSeqsOf, type RedactionAudit } from '../../shared/redaction.ts';
import { test } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { clientPool } from '../helpers/client-pool.ts';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const WAIT = { timeout: 10_000, interval: 10 };
const it = test.extend('hubConfig', { scope: 'file' }, { secrets: { mode: 'redact' as const } });

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

describe('the redacted notification across two nodes', () => {
  let nodes: readonly TestHub[];
  const pool = clientPool();
  const raws: RawHubClient[] = [];
  const client = (node: TestHub) => pool.connect(node);

  it.beforeAll(({ redisHubs }) => {
    ({ nodes } = redisHubs.cluster);
  });
  afterAll(async () => {
    pool.closeAll();
    await Promise.all(raws.map((raw) => raw.close()));
  });

  /** The audits a subscription told, as `[seqs, auditSeq]`. */
  const recordRedacted = (subscription: Subscription) => {
    const seen: [readonly number[], number][] = [];
    subscription.on('redacted', (audit: RedactionAudit, auditSeq) => seen.push([audit.seqs, auditSeq]));
    return seen;
  };

  /** A subscriber on `node` (its `redacted` and `reset` recorded) and the React hooks' view of the same client. */
  const watch = async (node: TestHub, sessionId: string) => {
    const watcherClient = client(node);
    const watcher = watcherClient.subscribe(sessionId);
    const seen = recordRedacted(watcher);
    const resets: string[] = [];
    watcher.on('reset', (epoch) => resets.push(epoch));
    const view = sessionView(watcherClient, sessionId);
    const release = view.retain();
    await watcher.whenLive();
    return { watcher, seen, resets, view, release };
  };

  it('a raw subscriber on the other node gets reset, then the redacted log ending with the audit', async () => {
    const sessionId = 'notify/raw';
    const writer = client(nodes[0]!);
    // No pattern matches this one: scanning at append lets it through.
    await writer.append(sessionId, [user('hello'), user('my password is hunter2'), user('bye')]);
    const raw = await RawHubClient.connect(nodes[1]!.wsUrl);
    raws.push(raw);
    await raw.request({ type: 'subscribe', sessionId });
    await raw.waitFor((message) => message.type === 'live');
    const before = raw.messages.length;

    const reply = await writer.redact(sessionId, [1], 'leaked password');
    expect(reply).toMatchObject({ seqs: [1], auditSeq: 3 });
    await raw.waitFor((message) => message.type === 'live', { from: before });
    const after: readonly ServerMessage[] = raw.messages.slice(before);
    // No frame of its own: the notification is the reset and the audit event, in this order.
    expect([...new Set(after.map((message) => message.type))]).toEqual(['reset', 'events', 'live']);
    expect(after[0]).toMatchObject({ type: 'reset', sessionId, epoch: reply.epoch });
    const events = raw.events(sessionId);
    expect(events.map((event) => event.seq)).toEqual([0, 1, 2, 3]);
    expect(events[1]!.data).toEqual({ role: 'user', content: REDACTED_TEXT });
    expect(events[3]).toMatchObject({ type: REDACTION_AUDIT_TYPE, data: { seqs: [1], reason: 'leaked password' } });
    expect(JSON.stringify(events)).not.toContain('hunter2');
  });

  it('SDK: scanning at append on one node, the subscriber and the view on the other get redacted, no reset', async () => {
    const sessionId = 'notify/scan';
    const { watcher, seen, resets, view, release } = await watch(nodes[1]!, sessionId);

    const [first] = await client(nodes[0]!).append(sessionId, [user('fine'), user(`here ${SECRET}`)]);
    await vi.waitFor(() => expect(seen).toEqual([[[first!.seq + 1], first!.seq + 2]]), WAIT);
    expect(resets).toEqual([]);
    expect(watcher.events.map((event) => event.type)).toEqual(['user/message', 'user/message', REDACTION_AUDIT_TYPE]);
    await vi.waitFor(() => expect(view.getSnapshot().events).toHaveLength(3), WAIT);
    const snapshot = view.getSnapshot();
    expect([...redactedSeqsOf(snapshot.events)]).toEqual([1]);
    expect(snapshot.messages[1]).toEqual({ role: 'user', content: `here ${REDACTED_TEXT}` });
    expect(JSON.stringify(snapshot)).not.toContain(SECRET);
    release();
  });

  it('SDK: each redaction resets the other node’s subscriber; redacted names the seqs, and a late joiner learns all', async () => {
    const sessionId = 'notify/sdk';
    const writer = client(nodes[0]!);
    await writer.append(sessionId, [user(`one ${SECRET}`), user('two'), user(`three ${SECRET.toUpperCase()}`)]);
    const { watcher, seen, resets, view, release } = await watch(nodes[1]!, sessionId);
    // Scanning at append took the lower-case token: its audit (seq 3) is in the log from the start.
    expect(seen).toEqual([[[0], 3]]);

    const firstRedaction = await writer.redact(sessionId, [2], 'second token');
    await vi.waitFor(() => expect(resets).toEqual([firstRedaction.epoch]), WAIT);
    await vi.waitFor(() => expect(seen.at(-1)).toEqual([[2], 4]), WAIT);
    // After the reset the copy is read again from seq 0: every audit of the log is told again, in log order.
    expect(seen).toEqual([
      [[0], 3],
      [[0], 3],
      [[2], 4],
    ]);
    expect(watcher.messages).toEqual(deriveMessages(watcher.events as SessionEvent[]));
    expect(JSON.stringify(watcher.events)).not.toContain(SECRET.toUpperCase());
    await vi.waitFor(() => expect([...redactedSeqsOf(view.getSnapshot().events)]).toEqual([0, 2]), WAIT);
    expect(view.getSnapshot().messages[2]).toEqual({ role: 'user', content: REDACTED_TEXT });

    const late = client(nodes[0]!).subscribe(sessionId);
    const lateSeen = recordRedacted(late);
    await late.whenLive();
    expect(lateSeen).toEqual([
      [[0], 3],
      [[2], 4],
    ]);
    release();
  });
});
