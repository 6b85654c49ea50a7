import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { HubProvider, useSession } from '../../client/react/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

function View({ sessionId }: { readonly sessionId: string | null }) {
  const { status, messages, events, lastSeq, error, presence } = useSession(null, sessionId);
  return createElement('p', null, JSON.stringify({ status, messages, events, lastSeq, error, presence }));
}

describe('useSession on the server', () => {
  let store: MemoryStore;
  let hub: TestHub;
  let client: HubClient;

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store });
    client = new HubClient({ url: hub.wsUrl });
    await client.append('ssr/one', { type: 'user/message', data: { role: 'user', content: 'hi' } });
  });
  afterAll(async () => {
    client?.close();
    await hub?.close();
    await store?.close();
  });

  it('renders the empty, loading state and subscribes to nothing', () => {
    for (const sessionId of ['ssr/one', null]) {
      const html = renderToString(createElement(HubProvider, { client }, createElement(View, { sessionId })));
      expect(html).toBe(
        `<p>${JSON.stringify({ status: 'loading', messages: [], events: [], lastSeq: -1, presence: [] }).replaceAll('"', '&quot;')}</p>`,
      );
    }
    expect(client.subscriptionOf('ssr/one')).toBeUndefined();
  });

  it('throws a clear error when there is neither a client nor a provider', () => {
    expect(() => renderToString(createElement(View, { sessionId: 'ssr/one' }))).toThrow(/HubProvider/);
  });
});
