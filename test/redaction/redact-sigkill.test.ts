// A hub node (a `session-hub serve` child process) killed with SIGKILL while it redacts (issue #30 a): with its
// redaction script sent but held by Redis (CLIENT PAUSE WRITE), and right after the script ran but before the node
// could answer (the node frozen with SIGSTOP while Redis runs it). After a restart every read path (HTTP pages, a
// WebSocket catch-up from 0, the snapshot) shows all requested seqs redacted with one audit event, or none of them;
// the caller got an error either way; a retry of the same request completes it, and a retry of a redaction that
// changed nothing appends no second audit.
import type { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { REDACTED_TEXT, REDACTION_AUDIT_TYPE } from '../../shared/redaction.ts';
import type { SessionEvent } from '../../shared/index.ts';
import { sessionPath, wsCatchUp } from '../archive/hub-reads.ts';
import { it } from '../helpers/fixtures.ts';
import { HubProcess } from '../helpers/hub-process.ts';

const SECRETS = ['sk-live-AAAA1111', 'sk-live-BBBB2222', 'sk-live-CCCC3333'];
const SEQS = [0, 2, 4];

function seed(sessionId: string) {
  return {
    sessionId,
    expectedSeq: 0,
    events: SECRETS.flatMap((secret, index) => [
      { type: 'user/message', data: { role: 'user', content: `key ${secret}` }, surfaceOp: 'append' as const },
      { type: 'app/note', data: { text: `harmless ${index}` } },
    ]),
  };
}

/** POST the redaction of SEQS; the reply, or the error the caller got (the node died before answering). */
async function redact(node: HubProcess, sessionId: string): Promise<Response | Error> {
  return fetch(`${node.url}${sessionPath(sessionId)}/redactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ seqs: SEQS, reason: 'leaked keys' }),
  }).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
}

/** Whether a client of `admin`'s Redis is held by the pause on a script (`EVALSHA`/`EVAL`, flag `b`). */
async function scriptHeld(admin: Redis): Promise<boolean> {
  const clients = String(await admin.call('CLIENT', 'LIST')).split('\n');
  return clients.some((line) => /\bcmd=(evalsha|eval)\b/.test(line) && /\bflags=\S*b/.test(line));
}

type Outcome = 'all' | 'none';

/**
 * What every read path of `node` shows of the session: 'all' (no secret, each requested seq a placeholder, exactly
 * one audit event naming them) or 'none' (every secret, no audit); anything else fails the test.
 */
async function outcomeOn(node: HubProcess, sessionId: string): Promise<Outcome> {
  const page = await fetch(`${node.url}${sessionPath(sessionId)}/events?from=0&limit=1000`);
  expect(page.status).toBe(200);
  const pageText = await page.text();
  const { events, errors } = await wsCatchUp(node, sessionId);
  expect(errors).toEqual([]);
  expect(JSON.parse(events)).toEqual((JSON.parse(pageText) as { events: SessionEvent[] }).events);
  const snapshot = await fetch(`${node.url}${sessionPath(sessionId)}/snapshot`);
  const snapshotText = snapshot.status === 200 ? await snapshot.text() : '';
  const log = (JSON.parse(pageText) as { events: SessionEvent[] }).events;
  const audits = log.filter((event) => event.type === REDACTION_AUDIT_TYPE);
  const left = SECRETS.filter((secret) => pageText.includes(secret));
  if (left.length === SECRETS.length && audits.length === 0) {
    return 'none';
  }
  expect(left).toEqual([]);
  expect(audits).toHaveLength(1);
  expect(audits[0]!.data).toMatchObject({ seqs: SEQS });
  for (const seq of SEQS) expect(log[seq]!.data).toMatchObject({ content: REDACTED_TEXT });
  for (const secret of SECRETS) expect(snapshotText).not.toContain(secret);
  return 'all';
}

interface KillPoint {
  readonly name: string;
  /** With the node's script held by the pause: end the node (and the pause) as this point does. */
  readonly kill: (node: HubProcess, admin: Redis, epochKey: string, epoch: string | null) => Promise<void>;
  /** What the restarted node must show (undefined: either, all or none). */
  readonly expected: Outcome | undefined;
}

const points: KillPoint[] = [
  {
    name: 'its script sent, held by Redis (before the script ran)',
    kill: async (node, admin) => {
      await node.kill();
      await admin.call('CLIENT', 'UNPAUSE');
    },
    expected: undefined,
  },
  {
    name: 'right after the script ran, before the node answered',
    kill: async (node, admin, epochKey, epoch) => {
      node.child.kill('SIGSTOP'); // frozen: Redis runs the script and answers a node that never reads it
      await admin.call('CLIENT', 'UNPAUSE');
      await expect.poll(() => admin.get(epochKey), { timeout: 15_000, interval: 10 }).not.toBe(epoch);
      await node.kill();
    },
    expected: 'all',
  },
];

describe('a hub node killed while it redacts', () => {
  it.for(points)(
    '$name: all or none after a restart, and a retry completes it once',
    async (point, { redis, admin, redisStore, keyPrefix }) => {
      const sessionId = `kill/${point.name.length}-${Date.now()}`;
      expect((await redisStore.commit(seed(sessionId))).status).toBe('committed');
      const { epoch: epochKey } = redisStore.keys(sessionId);
      const epoch = await admin.get(epochKey);
      const args = ['--redis', redis.url, '--key-prefix', keyPrefix];
      const node = await HubProcess.start(args);
      await admin.call('CLIENT', 'PAUSE', 60_000, 'WRITE');
      let reply: Promise<Response | Error>;
      try {
        reply = redact(node, sessionId);
        await expect.poll(() => scriptHeld(admin), { timeout: 15_000, interval: 10 }).toBe(true);
        await point.kill(node, admin, epochKey, epoch);
      } finally {
        await admin.call('CLIENT', 'UNPAUSE');
      }
      // The caller got no success: the node died before it answered.
      expect(await reply).toBeInstanceOf(Error);

      const restarted = await HubProcess.start(args);
      try {
        const outcome = await outcomeOn(restarted, sessionId);
        if (point.expected !== undefined) expect(outcome).toBe(point.expected);
        expect((await redisStore.head(sessionId)).epoch === epoch).toBe(outcome === 'none');

        const retried = await redact(restarted, sessionId);
        if (retried instanceof Error) throw retried;
        expect(retried.status).toBe(200);
        const body = (await retried.json()) as { seqs: number[]; unchanged: number[]; auditSeq: number | null };
        if (outcome === 'none') expect(body).toMatchObject({ seqs: SEQS, unchanged: [], auditSeq: 6 });
        else expect(body).toEqual(expect.objectContaining({ seqs: [], unchanged: SEQS, auditSeq: null }));
        expect(await outcomeOn(restarted, sessionId)).toBe('all');
        // Once more: nothing changes, no second audit.
        const again = await redact(restarted, sessionId);
        if (again instanceof Error) throw again;
        expect(await again.json()).toMatchObject({ seqs: [], auditSeq: null });
        expect(await outcomeOn(restarted, sessionId)).toBe('all');
      } finally {
        await restarted.terminate();
      }
    },
  );
});
