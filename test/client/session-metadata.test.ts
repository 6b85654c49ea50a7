import { afterAll, describe, expect, vi } from 'vitest';
import { HubClient, HubClientError, type SessionMetadata } from '../../client/index.ts';
import { test as it } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';

const WAIT = { timeout: 10_000, interval: 10 };

describe('SDK: client.setMetadata and subscription.metadata, across two nodes', () => {
  let nodes: readonly TestHub[];
  const clients: HubClient[] = [];
  const client = (node: number): HubClient => {
    const made = new HubClient({ url: nodes[node]!.wsUrl });
    clients.push(made);
    return made;
  };

  it.beforeAll(({ redisHubs }) => {
    ({ nodes } = redisHubs.cluster);
  });
  afterAll(() => {
    for (const made of clients) made.close();
  });

  it('sets the metadata from one node and every following subscription hears it, newest revision last', async () => {
    const writer = client(0);
    await writer.append('sdk/1', { type: 'test/note', data: { n: 0 } });
    const watching = client(1).subscribe('sdk/1', { metadata: true });
    const heard: SessionMetadata[] = [];
    watching.on('metadata', (metadata) => heard.push(metadata));
    const plain = client(1).subscribe('sdk/1');
    await vi.waitFor(() => expect(watching.metadata).toMatchObject({ createdBy: 'anonymous' }), WAIT);
    const result = await writer.setMetadata('sdk/1', { title: 'Hello', labels: { team: 'red' } });
    expect(result).toMatchObject({ title: 'Hello', labels: { team: 'red' }, createdBy: 'anonymous' });
    await vi.waitFor(() => expect(watching.metadata).toEqual(result), WAIT);
    const cleared = await client(1).setMetadata('sdk/1', { title: null, labels: { team: null, env: 'prod' } });
    expect(cleared).toMatchObject({ labels: { env: 'prod' }, rev: result.rev + 1 });
    expect(cleared.title).toBeUndefined();
    await vi.waitFor(() => expect(watching.metadata).toEqual(cleared), WAIT);
    const revs = heard.map((metadata) => metadata.rev);
    expect(revs).toEqual([...revs].sort((a, b) => a - b));
    expect(plain.metadata).toBeUndefined();
  });

  it('refuses a bad patch locally with INVALID_METADATA, and an unknown session with NOT_FOUND', async () => {
    const writer = client(0);
    const bad = await writer.setMetadata('sdk/2', { labels: { 'bad key': 'v' } }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(HubClientError);
    expect(bad).toMatchObject({ code: 'INVALID_METADATA', details: { field: 'labels.bad key' } });
    const missing = await writer.setMetadata('sdk/none', { title: 'x' }).catch((error: unknown) => error);
    expect(missing).toMatchObject({ code: 'NOT_FOUND' });
    expect(() => writer.subscribe('sdk/2', { metadata: 'yes' as unknown as boolean })).toThrow(/metadata must be/);
  });
});
