// Restoring one session on demand: `POST /v1/sessions/:id/restore` (admin) and `session-hub restore <id>` on a hub
// with an archive: HTTP pages and a WebSocket catch-up read the same before archiving, after it and after the
// restore; a session with nothing archived is idle, one another node archives is busy; a hub without an archive
// answers NOT_FOUND. Both archive backends (the limits are tested on the run: restore-run.test.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { it } from '../helpers/fixtures.ts';
import { runCliHere } from '../cli/run-cli.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { harnessChoices } from './harness-choices.ts';
import { httpExport, wsExport } from './hub-reads.ts';
import { turnDrafts } from './tier-helpers.ts';

describe.each(harnessChoices())('restore a session on demand: $name archive', ({ open }) => {
  let harness: ArchiveHarness;
  beforeAll(async () => {
    harness = await open();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('POST /v1/sessions/:id/restore and `session-hub restore` put the prefix back; pages stay the same', async ({
    startRedisHub,
  }) => {
    const { node, store } = await startRedisHub({ archive: harness.backend });
    const url = (sessionId: string, tail = '') => `${node.url}/v1/sessions/${encodeURIComponent(sessionId)}${tail}`;
    const write = async (sessionId: string, turns: number) => {
      for (const events of turnDrafts(turns)) {
        const response = await fetch(url(sessionId, '/events'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ events }),
        });
        expect(response.status).toBe(201);
      }
    };
    const page = async (sessionId: string) => (await fetch(url(sessionId, '/events?from=0'))).text();
    const post = async (path: string) => (await fetch(path, { method: 'POST' })).json();

    const first = `acme/restore-${randomUUID()}`;
    await write(first, 4);
    const before = await page(first);
    const catchUp = await wsExport(node, first);
    const pages = await httpExport(node, first, 7);
    expect(await post(url(first, '/restore'))).toEqual({ sessionId: first, status: 'idle' });
    expect(await post(url(first, '/archive'))).toMatchObject({ status: 'archived', cut: 26 });
    expect(await page(first)).toBe(before);
    const { epoch } = await store.head(first);
    const bytes = (await harness.backend.describe(first))!.bytes;
    expect(await post(url(first, '/restore'))).toEqual({
      sessionId: first,
      status: 'restored',
      epoch,
      firstSeq: 0,
      restored: 26,
      bytes,
      copied: 0,
    });
    expect(await store.head(first)).toEqual({ epoch, headSeq: 25 });
    expect(await harness.backend.describe(first)).toBeUndefined();
    expect(await page(first)).toBe(before);
    expect(await wsExport(node, first)).toBe(catchUp);
    expect(await httpExport(node, first, 7)).toEqual(pages);
    const bad = await fetch(url(first, '/restore?force=yes'), { method: 'POST' });
    expect(bad.status).toBe(400);
    expect((await fetch(url(first, '/restore'))).status).toBe(405);

    const second = `acme/restore-${randomUUID()}`;
    await write(second, 2);
    expect(await post(url(second, '/archive'))).toMatchObject({ status: 'archived', cut: 13 });
    const cli = await runCliHere(['restore', second, '--url', node.url]);
    expect(cli).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(
        /^restored acme\/restore-.*: the hot log starts at seq 0 again \(13 events/,
      ) as string,
    });
    expect(await store.head(second)).not.toHaveProperty('firstSeq');
    const idle = await runCliHere(['restore', second, '--url', node.url]);
    expect(idle).toMatchObject({ code: 0, stderr: expect.stringMatching(/nothing to restore/) as string });
    // Another node archiving it: busy, nothing changed; the command exits 1 naming why.
    expect(await post(url(second, '/archive'))).toMatchObject({ status: 'archived' });
    expect(await store.archiveLease.acquire(second, 'other-node', 60_000)).toBe(true);
    const busy = await runCliHere(['restore', second, '--url', node.url]);
    expect(busy).toMatchObject({ code: 1, stderr: expect.stringMatching(/not restored \(busy\)/) as string });
    expect(await store.head(second)).toMatchObject({ firstSeq: 13 });
  });

  it('a hub without an archive: NOT_FOUND, and the command exits 1 saying so', async ({ startRedisHub }) => {
    const { node } = await startRedisHub();
    const response = await fetch(`${node.url}/v1/sessions/acme%2Fx/restore`, { method: 'POST' });
    expect(response.status).toBe(404);
    const cli = await runCliHere(['restore', 'acme/x', '--url', node.url]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/NOT_FOUND: this hub has no archive/);
  });
});
