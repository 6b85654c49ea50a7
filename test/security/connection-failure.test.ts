import { describe, expect } from 'vitest';
import { CloseCode, HubErrorCode } from '../../shared/protocol.ts';
import type { HubAuth } from '../../server/auth/auth-seam.ts';
import { HubError, type ErrorDetails } from '../../server/hub-error.ts';
import { test } from '../helpers/fixtures.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/**
 * A failure inside a connection's own work that nothing else handles (here: an error reply that cannot be encoded
 * as JSON, from an auth hook that puts a BigInt in its details) closes that socket with 1011 and is logged; it is
 * never an unhandled rejection (which would end the process; the process guard fails this test if one occurs).
 */
const unencodable: HubAuth = {
  authenticate: () => ({ subject: 'anyone' }),
  authorize: (_, __, sessionId) => {
    if (sessionId !== 'poison') return true;
    throw new HubError(HubErrorCode.FORBIDDEN, 'no', { big: 10n } as unknown as ErrorDetails);
  },
};

const it = test.extend('hubConfig', { scope: 'file' }, { auth: unencodable });

describe('a failure while serving one connection', () => {
  it('closes that socket with 1011 and keeps serving the others', async ({ memoryHub: fixture }) => {
    const victim = await RawHubClient.connect(fixture.hub.wsUrl, { format: 'text' });
    const bystander = await RawHubClient.connect(fixture.hub.wsUrl, { format: 'text' });
    victim.send({ type: 'subscribe', id: 7, sessionId: 'poison' });
    expect((await victim.closed).code).toBe(CloseCode.INTERNAL_ERROR);
    expect(
      await bystander.request({ type: 'append', sessionId: 'fine', events: [{ type: 'x/y', data: 1 }] }),
    ).toMatchObject({
      type: 'ack',
    });
    await bystander.close();
  });
});
