// Redaction over both tiers, on each hot engine (memory, a real Redis) and each archive backend (file, PostgreSQL):
// the archived seqs a redaction names are rewritten in the archive (the original bytes leave its live data), the hot
// ones in the hot log, one audit event names and digests both, the archive moves to the redaction's epoch and the
// archiver goes on growing it; a retry changes nothing; a seq archived but not yet trimmed is rewritten in both.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import { isRedactionAudit, REDACTED_TEXT } from '../../shared/redaction.ts';
import { archiveSession } from '../../server/archive/archive-run.ts';
import { TieredStore } from '../../server/archive/tiered-store.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { bodiesDigest } from '../../server/store/redaction-plan.ts';
import { encodeEventBody } from '../../server/store/codec/event-codec.ts';
import { storeEngines, type Engine } from '../helpers/engines.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { harnessChoices } from './harness-choices.ts';
import { commitAll, turnDrafts } from './tier-helpers.ts';

const cases = storeEngines(`tred-${randomUUID()}:`).flatMap((engine) =>
  harnessChoices().map((archive) => ({ name: `${engine.name} + ${archive.name}`, engine, archive })),
);

/** A turn whose one chunk holds `secret`, then `turns` more turns. */
async function sessionWithSecret(store: EventStore, sessionId: string, secret: string, turns: number): Promise<number> {
  await commitAll(store, sessionId, [
    [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: `the key is ${secret}` } },
      { type: 'step/end', data: { turn: 1, step: 1 } },
      { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
    ],
  ]);
  await commitAll(store, sessionId, turnDrafts(turns, 2));
  return 2; // the chunk's seq
}

const textOf = (event: SessionEvent | undefined): string => JSON.stringify(event?.data);

describe.each(cases)('redaction through the TieredStore, $name', ({ engine, archive }) => {
  let hot: Engine;
  let harness: ArchiveHarness;
  let tiered: TieredStore;

  beforeAll(async () => {
    [hot, harness] = await Promise.all([engine.open(), archive.open()]);
    tiered = new TieredStore(hot.store, harness.backend);
  });
  afterAll(async () => {
    await Promise.all([hot.store.close().then(() => hot.stop()), harness.close()]);
  });

  const archiveUpTo = (sessionId: string, before: number, fail?: 'before-trim'): ReturnType<typeof archiveSession> =>
    archiveSession({
      store: hot.store,
      archive: harness.backend,
      sessionId,
      token: `t-${randomUUID()}`,
      before,
      ...(fail === undefined
        ? {}
        : {
            onStep: (step) => {
              if (step === 'verified') throw new Error('stopped before the trim');
            },
          }),
    });

  test('rewrites archived seqs in the archive and hot seqs in Redis, with one audit naming both', async () => {
    const sessionId = `tred-${randomUUID()}`;
    const secret = `sk-live-${randomUUID()}`;
    const secretSeq = await sessionWithSecret(tiered, sessionId, secret, 20);
    const run = await archiveUpTo(sessionId, 40);
    expect(run.status).toBe('archived');
    const cut = run.status === 'archived' ? run.cut : 0;
    const before = await tiered.read(sessionId, 0, 10_000);
    const hotSeq = before.findLast((event) => event.seq >= cut && event.type === 'assistant/chunk')!.seq;
    expect(await harness.liveBytesContain(sessionId, Buffer.from(secret))).toBe(true);

    const result = await tiered.redactions.redact({ sessionId, seqs: [secretSeq, hotSeq], reason: 'leak', by: 'ops' });
    expect(result).toMatchObject({ status: 'redacted', seqs: [secretSeq, hotSeq], unchanged: [], cold: [] });
    if (result.status !== 'redacted') return;

    // The bytes are gone from the archive's live data; every read shows the placeholder.
    expect(await harness.liveBytesContain(sessionId, Buffer.from(secret))).toBe(false);
    const after = await tiered.read(sessionId, 0, 10_000);
    expect(after.map((event) => event.seq)).toEqual([...before.map((event) => event.seq), before.length]);
    expect(textOf(after[secretSeq])).toContain(REDACTED_TEXT);
    expect(textOf(after[secretSeq])).not.toContain(secret);
    expect(textOf(after[hotSeq])).toContain(REDACTED_TEXT);
    const untouched = after.filter((event) => event.seq !== secretSeq && event.seq !== hotSeq).slice(0, -1);
    expect(untouched).toEqual(before.filter((event) => event.seq !== secretSeq && event.seq !== hotSeq));

    // One audit event names both seqs, with the digest of both original bodies.
    const audit = after.at(-1)!;
    expect(audit.seq).toBe(result.auditSeq);
    expect(isRedactionAudit(audit)).toBe(true);
    const originals = [before[secretSeq]!, before[hotSeq]!].map((event) => encodeEventBody(event));
    expect(audit.data).toMatchObject({ seqs: [secretSeq, hotSeq], digest: bodiesDigest(originals) });

    // The archive is in the redaction's epoch, and archiving goes on from where it stopped.
    expect((await harness.backend.describe(sessionId))?.epoch).toBe(result.epoch);
    await commitAll(tiered, sessionId, turnDrafts(10, 30));
    const next = await archiveUpTo(sessionId, 1_000);
    expect(next).toMatchObject({ status: 'archived', epoch: result.epoch });
    expect(await tiered.read(sessionId, 0, 10_000)).toEqual([
      ...after,
      ...(await tiered.read(sessionId, after.length, 10_000)),
    ]);

    // A retry changes nothing and writes no second audit.
    const retry = await tiered.redactions.redact({ sessionId, seqs: [secretSeq, hotSeq], reason: 'leak', by: 'ops' });
    expect(retry).toMatchObject({ status: 'redacted', seqs: [], unchanged: [secretSeq, hotSeq], auditSeq: undefined });
  });

  test('redacts seqs the archive alone holds: an audit event and a new epoch, nothing hot rewritten', async () => {
    const sessionId = `tred-${randomUUID()}`;
    const secret = `AKIA${randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase()}`;
    const secretSeq = await sessionWithSecret(tiered, sessionId, secret, 6);
    const head = await tiered.head(sessionId);
    // Archived whole: the hot log holds no event.
    expect(await archiveUpTo(sessionId, head.headSeq + 1)).toMatchObject({ status: 'archived', cut: head.headSeq + 1 });
    const result = await tiered.redactions.redact({ sessionId, seqs: [secretSeq], reason: 'leak', by: 'ops' });
    expect(result).toMatchObject({ status: 'redacted', seqs: [secretSeq], auditSeq: head.headSeq + 1 });
    expect(await harness.liveBytesContain(sessionId, Buffer.from(secret))).toBe(false);
    const events = await tiered.read(sessionId, 0, 10_000);
    expect(events.map((event) => event.seq)).toEqual(Array.from({ length: head.headSeq + 2 }, (_, seq) => seq));
    expect(textOf(events[secretSeq])).not.toContain(secret);
    expect(events.at(-1)?.type).toBe('audit/redaction');
  });

  test('a seq archived but not yet trimmed is rewritten in both tiers, and the next run trims', async () => {
    const sessionId = `tred-${randomUUID()}`;
    const secret = `ghp_${randomUUID().replaceAll('-', '')}`;
    const secretSeq = await sessionWithSecret(tiered, sessionId, secret, 8);
    await expect(archiveUpTo(sessionId, 30, 'before-trim')).rejects.toThrow('stopped before the trim');
    expect((await tiered.hot.head(sessionId)).firstSeq ?? 0).toBe(0); // archived, not trimmed
    expect(await harness.liveBytesContain(sessionId, Buffer.from(secret))).toBe(true);

    const result = await tiered.redactions.redact({ sessionId, seqs: [secretSeq], reason: 'leak', by: 'ops' });
    expect(result).toMatchObject({ status: 'redacted', seqs: [secretSeq], cold: [] });
    expect(await harness.liveBytesContain(sessionId, Buffer.from(secret))).toBe(false);
    expect(textOf((await tiered.hot.read(sessionId, secretSeq, 1))[0])).not.toContain(secret);
    // The tiers agree, so the next run verifies and trims.
    expect(await archiveUpTo(sessionId, 30)).toMatchObject({ status: 'archived' });
    expect((await tiered.hot.head(sessionId)).firstSeq).toBeGreaterThan(secretSeq);
    expect(textOf((await tiered.read(sessionId, secretSeq, 1))[0])).toContain(REDACTED_TEXT);
  });
});
