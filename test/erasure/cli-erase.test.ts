// session-hub erase: one session, and a subject's sessions (dry run, then for real), against a hub in this process.
import { describe, expect } from 'vitest';
import type { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { NO_EPOCH } from '../../server/store/event-store.ts';
import { test } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { runCliHere } from '../cli/run-cli.ts';

async function session(store: MemoryStore, sessionId: string, createdBy: string, labels = {}): Promise<void> {
  await store.metadata.initialize(sessionId, { createdBy });
  const result = await store.commit({ sessionId, expectedSeq: 0, events: [{ type: 'app/note', data: { n: 1 } }] });
  expect(result.status).toBe('committed');
  await store.metadata.patch(sessionId, { labels });
}

describe('session-hub erase', () => {
  let store: MemoryStore;
  let hub: TestHub;
  test.beforeAll(async ({ memoryHub }) => {
    ({ store, hub } = memoryHub);
    await session(store, 'acme/one', 'carol');
    await session(store, 'acme/a1', 'alice', { userId: 'u-42' });
    await session(store, 'acme/a2', 'alice');
    await session(store, 'acme/b1', 'bob', { userId: 'u-42' });
  });

  test('erases one session with a reason, and refuses without one or without --yes off a terminal', async () => {
    const noReason = await runCliHere(['erase', 'acme/one', '--yes', '--url', hub.url]);
    expect(noReason.code).toBe(2);
    const noYes = await runCliHere(['erase', 'acme/one', '--reason', 'r', '--url', hub.url]);
    expect(noYes.code).toBe(2);
    expect((await store.head('acme/one')).headSeq).toBe(0);
    const done = await runCliHere(['erase', 'acme/one', '--reason', 'ticket 1', '--yes', '--json', '--url', hub.url]);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ sessionId: 'acme/one', erased: true, events: 1, metadata: true });
    expect(await store.head('acme/one')).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
  });

  test('a dry run lists the subject sessions and changes nothing; the real run erases them and only them', async () => {
    const dry = await runCliHere(['erase', '--created-by', 'alice', '--dry-run', '--url', hub.url]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('acme/a1\nacme/a2\n');
    expect(dry.stderr).toContain('2 session(s) would be erased');
    expect((await store.head('acme/a1')).headSeq).toBe(0);
    const labelled = await runCliHere(['erase', '--label', 'userId=u-42', '--dry-run', '--url', hub.url]);
    expect(labelled.stdout).toBe('acme/a1\nacme/b1\n');
    const real = await runCliHere([
      'erase',
      '--created-by',
      'alice',
      '--reason',
      'right to erasure',
      '--yes',
      '--url',
      hub.url,
    ]);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toBe('acme/a1\nacme/a2\n');
    expect(real.stderr).toContain('erased 2 session(s)');
    for (const sessionId of ['acme/a1', 'acme/a2']) expect((await store.head(sessionId)).epoch).toBe(NO_EPOCH);
    expect((await store.head('acme/b1')).headSeq).toBe(0);
    const bad = await runCliHere(['erase', '--label', 'u-42', '--dry-run', '--url', hub.url]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('BAD_REQUEST');
  });
});
