// listSessions (the SDK's listing call): one page of GET /v1/sessions with title, labels, creator and lineage, label
// filters and paging by `next`; refusals keep the hub's code and a bad query changes nothing.
import { describe, expect } from 'vitest';
import { HubClientError, listSessions } from '../../client/index.ts';
import { test } from '../helpers/fixtures.ts';
import { secureTest } from '../security/secure-hub.ts';

const TURN = [
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
] as const;

describe('listSessions', () => {
  test('lists a page with metadata and lineage, filters by label, pages with next', async ({ memoryHubClient }) => {
    const { client, node } = memoryHubClient;
    const hub = { url: node.wsUrl };
    await client.append('ls/a', [...TURN]);
    await client.append('ls/b', [...TURN]);
    await client.setMetadata('ls/b', { title: 'Trip to Lyon', labels: { team: 'red' } });
    const fork = await client.fork('ls/b', 1, { newId: 'ls/b-retry' });
    expect(fork.parent).toBe('ls/b');

    const all = await listSessions(hub, { prefix: 'ls/' });
    expect(all.next).toBeUndefined();
    expect(all.sessions.map((row) => row.id).sort()).toEqual(['ls/a', 'ls/b', 'ls/b-retry']);
    const byId = new Map(all.sessions.map((row) => [row.id, row]));
    expect(byId.get('ls/b')).toMatchObject({ tier: 'hot', headSeq: 1, title: 'Trip to Lyon', labels: { team: 'red' } });
    expect(byId.get('ls/b-retry')).toMatchObject({ parent: 'ls/b', forkSeq: 1 });

    expect((await listSessions(hub, { prefix: 'ls/', labels: ['team=red'] })).sessions.map((row) => row.id)).toEqual([
      'ls/b',
    ]);
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await listSessions(hub, { prefix: 'ls/', limit: 1, ...(after === undefined ? {} : { after }) });
      expect(page.sessions.length).toBe(1);
      seen.push(...page.sessions.map((row) => row.id));
      after = page.next;
    } while (after !== undefined);
    expect(seen.sort()).toEqual(['ls/a', 'ls/b', 'ls/b-retry']);

    const bad = await listSessions(hub, { prefix: 'ls' }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(HubClientError);
    expect(bad).toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('listSessions with tokens', () => {
  secureTest('is refused with FORBIDDEN without admin; a tenant admin lists its prefix', async ({ secureHub }) => {
    const committed = await secureHub.store.commit({
      sessionId: 'acme/listed',
      expectedSeq: 0,
      events: [{ type: 'app/note', data: {} }],
    });
    expect(committed.status).toBe('committed');
    const url = secureHub.hub.wsUrl;
    const reader = await secureHub.mint({ read: ['*'] });
    expect(await listSessions({ url, token: reader }).catch((error: unknown) => error)).toMatchObject({
      code: 'FORBIDDEN',
    });
    const tenantAdmin = async () => secureHub.mint({ admin: ['acme/*'] });
    const page = await listSessions({ url, token: tenantAdmin }, { prefix: 'acme/' });
    expect(page.sessions.map((row) => row.id)).toEqual(['acme/listed']);
  });
});
