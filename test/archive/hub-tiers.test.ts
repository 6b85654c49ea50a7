// A hub with an archive (HubConfig.archive): once a session's prefix is archived and trimmed from Redis, HTTP pages
// and a WebSocket catch-up from seq 0 return what they returned before, byte for byte, on a node that never saw the
// session; appends on that fresh node (which must load the trimmed log to validate them) continue the log; the
// listing shows sessions only the archive holds as tier 'cold'. Both archive backends.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { archiveSession } from '../../server/archive/archive-run.ts';
import { it } from '../helpers/fixtures.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { harnessChoices } from './harness-choices.ts';
import { append, httpExport, path, wsExport } from './hub-exports.ts';
import { turnDrafts } from './tier-helpers.ts';

describe.each(harnessChoices())('a hub with the $name archive', ({ open }) => {
  let harness: ArchiveHarness;

  beforeAll(async () => {
    harness = await open();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('serves the same pages and catch-up after archiving, on a fresh node, and appends continue there', async ({
    startRedisHub,
  }) => {
    const sessionId = `acme/tiers-${randomUUID()}`;
    const writer = await startRedisHub({ archive: harness.backend });
    for (const events of turnDrafts(30)) expect((await append(writer.node, sessionId, events)).status).toBe(201);
    const pagesBefore = await httpExport(writer.node, sessionId, 17);
    const catchUpBefore = await wsExport(writer.node, sessionId);

    const run = await archiveSession({ store: writer.store, archive: harness.backend, sessionId, token: 'test' });
    expect(run).toMatchObject({ status: 'archived' });
    const cut = run.status === 'archived' ? run.cut : 0;
    expect(cut).toBe(JSON.parse(catchUpBefore).length); // every turn is closed: all of it is archived
    expect(await writer.store.head(sessionId)).toMatchObject({ firstSeq: cut });

    const fresh = await startRedisHub({ archive: harness.backend });
    expect(await httpExport(fresh.node, sessionId, 17)).toEqual(pagesBefore);
    expect(await wsExport(fresh.node, sessionId)).toBe(catchUpBefore);
    const head = await fetch(`${fresh.node.url}${path(sessionId)}`);
    expect(await head.json()).toMatchObject({ sessionId, headSeq: cut - 1 });
    // The fresh node loads the log (archive, then Redis) to validate an append: it knows the archived turns, so
    // turn 5 again is out of order and turn 31 follows turn 30.
    const refused = await append(fresh.node, sessionId, turnDrafts(1, 5)[0]!);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'LIFECYCLE_VIOLATION', details: { seq: cut } } });
    for (const events of turnDrafts(1, 31)) {
      const appended = await append(fresh.node, sessionId, events);
      expect(appended.status, await appended.clone().text()).toBe(201);
    }
    expect(await fresh.store.head(sessionId)).toMatchObject({ firstSeq: cut, headSeq: cut + 7 });
  });

  it("lists the sessions only the archive holds as tier 'cold', beside the hot ones", async ({ startRedisHub }) => {
    const stem = `listing-${randomUUID()}/`;
    const { node, store } = await startRedisHub({ archive: harness.backend });
    for (const events of turnDrafts(2)) expect((await append(node, `${stem}cold`, events)).status).toBe(201);
    for (const events of turnDrafts(1)) expect((await append(node, `${stem}hot`, events)).status).toBe(201);
    expect(
      await archiveSession({ store, archive: harness.backend, sessionId: `${stem}cold`, token: 't' }),
    ).toMatchObject({
      status: 'archived',
    });
    await store.deleteSession(`${stem}cold`); // Redis lost it: only the archive holds it now
    const response = await fetch(`${node.url}/v1/sessions?prefix=${encodeURIComponent(stem)}`);
    expect(response.status).toBe(200);
    const { sessions } = (await response.json()) as { sessions: { id: string; tier: string; headSeq: number }[] };
    expect(sessions.map(({ id, tier, headSeq }) => ({ id, tier, headSeq }))).toEqual(
      expect.arrayContaining([
        { id: `${stem}cold`, tier: 'cold', headSeq: 12 },
        { id: `${stem}hot`, tier: 'hot', headSeq: 5 },
      ]),
    );
    expect(sessions).toHaveLength(2);
  });
});
