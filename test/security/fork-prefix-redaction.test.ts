// A redaction through a fork of seqs it shares with its parent (0..forkSeq, read through the parent, never copied):
// refused with BAD_REQUEST naming the parent, nothing changed. Before, it answered 200 with those seqs as `cold`, as if
// an archive held them, and the secret stayed readable in the fork. The fork's own seqs redact as usual, and a
// redaction of the parent shows in the fork.
import { describe, expect } from 'vitest';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';

const turn = (n: number, text: string) => [
  { type: 'turn/start', data: { turn: n } },
  { type: 'app/note', data: { text } },
  { type: 'turn/end', data: { turn: n, reason: { kind: 'completed' } } },
];

const engines = storeEngines('forkredact:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));

describe.each(engines)('redaction through a fork ($name)', ({ it }) => {
  it("refuses the parent's seqs (naming the parent), redacts the fork's own", async ({ engineHub }) => {
    const { hub } = engineHub;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${hub.url}${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const texts = async (id: string) => {
      const page = await call('GET', `/v1/sessions/${encodeURIComponent(id)}/events?from=0`);
      return (page.body['events'] as { data: unknown }[]).map((event) => JSON.stringify(event.data));
    };
    expect((await call('POST', '/v1/sessions/fr%2Fp/events', { events: turn(1, 'secret-in-parent') })).status).toBe(
      201,
    );
    expect((await call('POST', '/v1/sessions/fr%2Fp/forks', { atSeq: 2, newId: 'fr/f' })).status).toBe(201);
    expect((await call('POST', '/v1/sessions/fr%2Ff/events', { events: turn(2, 'secret-in-fork') })).status).toBe(201);
    const before = await call('GET', '/v1/sessions/fr%2Ff');

    const refused = await call('POST', '/v1/sessions/fr%2Ff/redactions', { seqs: [1, 4], reason: 'leak' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { code: 'BAD_REQUEST', details: { parent: 'fr/p', forkSeq: 2 } } });
    expect(await call('GET', '/v1/sessions/fr%2Ff')).toEqual(before); // same epoch and head: nothing changed
    expect((await texts('fr/f')).join()).toContain('secret-in-fork');

    const own = await call('POST', '/v1/sessions/fr%2Ff/redactions', { seqs: [4], reason: 'leak' });
    expect(own).toMatchObject({ status: 200, body: { seqs: [4], cold: [] } });
    const parent = await call('POST', '/v1/sessions/fr%2Fp/redactions', { seqs: [1], reason: 'leak' });
    expect(parent).toMatchObject({ status: 200, body: { seqs: [1] } });
    const fork = (await texts('fr/f')).join();
    expect(fork).not.toContain('secret-in-parent');
    expect(fork).not.toContain('secret-in-fork');
  });
});
