// Archiving one session on demand: `POST /v1/sessions/:id/archive` (admin) and `session-hub archive <id>` on a hub
// with an archive; a hub without one answers NOT_FOUND and the command says so. Both archive backends.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { it } from '../helpers/fixtures.ts';
import { runCliHere } from '../cli/run-cli.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { harnessChoices } from './harness-choices.ts';
import { turnDrafts } from './tier-helpers.ts';

describe.each(harnessChoices())('archive a session on demand: $name archive', ({ open }) => {
  let harness: ArchiveHarness;
  beforeAll(async () => {
    harness = await open();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('POST /v1/sessions/:id/archive and `session-hub archive` archive and trim; reads stay the same', async ({
    startRedisHub,
  }) => {
    const { node, store } = await startRedisHub({ archive: harness.backend });
    const url = (sessionId: string, tail = '') => `${node.url}/v1/sessions/${encodeURIComponent(sessionId)}${tail}`;
    const write = async (sessionId: string, turns: number, firstTurn = 1) => {
      for (const events of turnDrafts(turns, firstTurn)) {
        const response = await fetch(url(sessionId, '/events'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ events }),
        });
        expect(response.status).toBe(201);
      }
    };
    const first = `acme/admin-${randomUUID()}`;
    await write(first, 4);
    const page = async (sessionId: string) => (await fetch(url(sessionId, '/events?from=0'))).text();
    const before = await page(first);
    const response = await fetch(url(first, '/archive'), { method: 'POST' });
    expect(response.status).toBe(200);
    const count = 6 + 7 + 8 + 5; // turn t: turn/start, step/start, 1 + t % 4 chunks, step/end, turn/end
    expect(await response.json()).toEqual({
      sessionId: first,
      status: 'archived',
      epoch: (await store.head(first)).epoch,
      cut: count,
      appended: count,
      trimmed: count,
    });
    expect(await store.head(first)).toMatchObject({ firstSeq: count });
    expect(await page(first)).toBe(before);
    expect(await (await fetch(url(first, '/archive'), { method: 'POST' })).json()).toEqual({
      sessionId: first,
      status: 'idle',
    });
    expect((await fetch(url(first, '/archive'))).status).toBe(405);

    const second = `acme/admin-${randomUUID()}`;
    await write(second, 2);
    const cli = await runCliHere(['archive', second, '--url', node.url]);
    expect(cli).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/^archived acme\/admin-.*: the hot log starts at seq 13 /) as string,
    });
    expect(await store.head(second)).toMatchObject({ firstSeq: 13 });
    // Another node archiving it: busy, nothing trimmed; the command exits 1 naming why.
    await write(second, 1, 3);
    expect(await store.archiveLease.acquire(second, 'other-node', 60_000)).toBe(true);
    const busy = await runCliHere(['archive', second, '--url', node.url]);
    expect(busy).toMatchObject({ code: 1, stderr: expect.stringMatching(/not archived \(busy\)/) as string });
    expect(await store.head(second)).toMatchObject({ firstSeq: 13 });
  });

  it('a hub without an archive: NOT_FOUND, and the command exits 1 saying so', async ({ startRedisHub }) => {
    const { node } = await startRedisHub();
    const response = await fetch(`${node.url}/v1/sessions/acme%2Fx/archive`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: { code: 'NOT_FOUND', message: expect.stringMatching(/no archive/) as string },
    });
    const cli = await runCliHere(['archive', 'acme/x', '--url', node.url]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/NOT_FOUND: this hub has no archive/);
  });
});
