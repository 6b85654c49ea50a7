// A hub node (a `session-hub serve` child process) killed with SIGKILL while it redacts (issue #30 a): with its
// redaction script sent but held by Redis (CLIENT PAUSE WRITE), and right after the script ran but before the node
// could answer (the node frozen with SIGSTOP while Redis runs it). After a restart every read path (HTTP pages, a
// WebSocket catch-up from 0, the snapshot) shows all requested seqs redacted with one audit event, or none of them;
// the caller got an error either way; a retry of the same request completes it, and a retry of a redaction that
// changed nothing appends no second audit.
import type { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { it } from '../helpers/fixtures.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import { outcomeOn, redact, seed, SEQS, type Outcome } from './redaction-outcome.ts';

/** Whether a client of `admin`'s Redis is held by the pause on a script (`EVALSHA`/`EVAL`, flag `b`). */
async function scriptHeld(admin: Redis): Promise<boolean> {
  const clients = String(await admin.call('CLIENT', 'LIST')).split('\n');
  return clients.some((line) => /\bcmd=(evalsha|eval)\b/.test(line) && /\bflags=\S*b/.test(line));
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
