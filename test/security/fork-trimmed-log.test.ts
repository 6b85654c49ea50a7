// A fork of a log whose prefix was trimmed (archived where no archive is read, docs/protocol.md#forks): at a turn
// boundary in the part still held it is made, and reads as its parent does (GONE below the first seq, the events from
// there); below the first seq, or where the fork rule needs the trimmed events, it is GONE with `firstSeq`, nothing
// made. Before, every fork of a trimmed log read its rule from seq 0 and answered GONE "seq 0 is gone", even at a
// boundary far above the trim, on both engines.
import { describe, expect } from 'vitest';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';

const turn = (n: number) => [
  { type: 'turn/start', data: { turn: n } },
  { type: 'app/note', data: { n } },
  { type: 'turn/end', data: { turn: n, reason: { kind: 'completed' } } },
];

const engines = storeEngines('forktrim:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));

describe.each(engines)('fork of a trimmed log ($name)', ({ it }) => {
  it('forks at a held boundary; GONE below the first seq or inside a turn that began there', async ({ engineHub }) => {
    const { store, hub } = engineHub;
    const committed = await store.commit({
      sessionId: 'ft/1',
      expectedSeq: 0,
      events: [...turn(1), ...turn(2), ...turn(3)],
    });
    expect(committed.status).toBe('committed');
    const { epoch } = await store.head('ft/1');
    // Seqs 0..3 go: turn 1 and the turn/start of turn 2.
    expect(await store.trim({ sessionId: 'ft/1', epoch, beforeSeq: 4 })).toMatchObject({
      status: 'trimmed',
      firstSeq: 4,
    });
    const fork = (body: object) =>
      fetch(`${hub.url}/v1/sessions/ft%2F1/forks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    for (const atSeq of [5, 8]) {
      const made = await fork({ atSeq, newId: `ft/at-${atSeq}` });
      expect(made.status).toBe(201);
      expect(await made.json()).toMatchObject({ sessionId: `ft/at-${atSeq}`, parent: 'ft/1', forkSeq: atSeq });
    }
    // The fork reads as its parent does: GONE below the first seq held, the events from there.
    const below = await fetch(`${hub.url}/v1/sessions/ft%2Fat-8/events?from=0`);
    expect(below.status).toBe(410);
    expect(((await below.json()) as { error: { details: { firstSeq: number } } }).error.details.firstSeq).toBe(4);
    const held = await fetch(`${hub.url}/v1/sessions/ft%2Fat-8/events?from=4`);
    expect(held.status).toBe(200);
    const page = (await held.json()) as { events: { seq: number }[] };
    expect(page.events.map((event) => event.seq)).toEqual([4, 5, 6, 7, 8]);

    // Refused with GONE (firstSeq 4) and nothing made: below the first seq, and inside turn 2 (its start is trimmed).
    for (const [atSeq, repair] of [
      [2, false],
      [3, false],
      [4, true],
    ] as const) {
      const refused = await fork({ atSeq, repair, newId: `ft/no-${atSeq}` });
      expect(refused.status).toBe(410);
      expect(await refused.json()).toMatchObject({ error: { code: 'GONE', details: { firstSeq: 4 } } });
      expect((await store.head(`ft/no-${atSeq}`)).headSeq).toBe(-1);
    }
    expect((await store.forks.list('ft/1')).sort()).toEqual(['ft/at-5', 'ft/at-8']);
  });
});
