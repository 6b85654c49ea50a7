// Redaction seen live: two hub nodes on one Redis, a subscriber on one, the redaction through the other (SDK).
import { afterAll, describe, expect, vi } from 'vitest';
import { deriveMessages, type SessionEvent } from '../../shared/index.ts';
import type { RedactionAudit } from '../../shared/redaction.ts';
import { REDACTED_TEXT } from '../../shared/redaction.ts';
import { test as it } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { clientPool } from '../helpers/client-pool.ts';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const WAIT = { timeout: 10_000, interval: 10 };

describe('a redaction reaches live subscribers on every node', () => {
  let nodes: readonly TestHub[];
  const pool = clientPool();
  const client = (node: TestHub) => pool.connect(node);

  it.beforeAll(({ redisHubs }) => {
    ({ nodes } = redisHubs.cluster);
  });
  afterAll(() => pool.closeAll());

  it('resets them onto the redacted log, emits redacted, and appends go on from both nodes', async () => {
    const sessionId = 'live/redact-1';
    const writer = client(nodes[0]!);
    await writer.append(sessionId, [
      { type: 'user/message', data: { role: 'user', content: 'hello' } },
      { type: 'user/message', data: { role: 'user', content: `token ${SECRET}` } },
    ]);
    const watcher = client(nodes[0]!).subscribe(sessionId);
    const resets: string[] = [];
    const audits: [RedactionAudit, number][] = [];
    watcher.on('reset', (epoch) => resets.push(epoch));
    watcher.on('redacted', (audit, seq) => audits.push([audit, seq]));
    await vi.waitFor(() => expect(watcher.events).toHaveLength(2), WAIT);
    expect(JSON.stringify(watcher.messages)).toContain(SECRET);

    const reply = await client(nodes[1]!).redact(sessionId, [1], 'leaked GitHub token');
    expect(reply).toMatchObject({ sessionId, seqs: [1], unchanged: [], cold: [], auditSeq: 2 });

    await vi.waitFor(() => expect(watcher.events).toHaveLength(3), WAIT);
    expect(resets).toEqual([reply.epoch]);
    expect(audits).toEqual([[expect.objectContaining({ seqs: [1], reason: 'leaked GitHub token' }), 2]]);
    expect(JSON.stringify(watcher.events)).not.toContain(SECRET);
    expect(watcher.messages).toEqual(deriveMessages(watcher.events as SessionEvent[]));
    expect(watcher.messages[1]).toEqual({ role: 'user', content: REDACTED_TEXT });

    // The writer's node and the other one validate against the redacted log: appends go on from both.
    await writer.append(sessionId, { type: 'user/message', data: { role: 'user', content: 'after' } });
    await client(nodes[1]!).append(sessionId, { type: 'app/note', data: { n: 1 } });
    await vi.waitFor(() => expect(watcher.events).toHaveLength(5), WAIT);
    expect(watcher.events.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4]);

    // A future seq: refused, nothing changed, no reset.
    await expect(client(nodes[1]!).redact(sessionId, [9], 'r')).rejects.toMatchObject({ code: 'SEQ_OUT_OF_RANGE' });
    expect(resets).toHaveLength(1);
  });
});
