// GET /v1/sessions rows name each session's head seq as GET /v1/sessions/:id does. The summary counted the entries
// the session's own stream holds: a fork with no events of its own was listed at headSeq -1 (its head is its
// forkSeq), one with events at their count minus one, and a trimmed log at the count of what it still holds.
import { describe, expect } from 'vitest';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';

const turn = (n: number) => [
  { type: 'turn/start', data: { turn: n } },
  { type: 'app/note', data: { n } },
  { type: 'turn/end', data: { turn: n, reason: { kind: 'completed' } } },
];

const engines = storeEngines('listhead:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));

describe.each(engines)('listing head seqs ($name)', ({ it }) => {
  it('forks (with and without events of their own) and a trimmed log list their real head', async ({ engineHub }) => {
    const { store, hub } = engineHub;
    const post = (path: string, body: unknown) =>
      fetch(`${hub.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/v1/sessions/lh%2Fp/events', { events: [...turn(1), ...turn(2)] })).status).toBe(201);
    expect((await post('/v1/sessions/lh%2Fp/forks', { atSeq: 2, newId: 'lh/bare' })).status).toBe(201);
    expect((await post('/v1/sessions/lh%2Fp/forks', { atSeq: 5, newId: 'lh/grown' })).status).toBe(201);
    expect((await post('/v1/sessions/lh%2Fgrown/events', { events: turn(3) })).status).toBe(201);
    const committed = await store.commit({ sessionId: 'lh/t', expectedSeq: 0, events: [...turn(1), ...turn(2)] });
    expect(committed.status).toBe('committed');
    const { epoch } = await store.head('lh/t');
    expect(await store.trim({ sessionId: 'lh/t', epoch, beforeSeq: 3 })).toMatchObject({ status: 'trimmed' });

    const listing = await fetch(`${hub.url}/v1/sessions?prefix=lh/`);
    expect(listing.status).toBe(200);
    const rows = ((await listing.json()) as { sessions: { id: string; headSeq: number }[] }).sessions;
    const listed = Object.fromEntries(rows.map((row) => [row.id, row.headSeq]));
    expect(listed).toEqual({ 'lh/p': 5, 'lh/bare': 2, 'lh/grown': 8, 'lh/t': 5 });
    for (const id of Object.keys(listed)) {
      const head = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(id)}`);
      expect(((await head.json()) as { headSeq: number }).headSeq).toBe(listed[id]);
    }
  });
});
