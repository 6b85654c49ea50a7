import { afterAll, beforeAll, describe, expect } from 'vitest';
import { HubClient, type Subscription } from '../../client/index.ts';
import type { Watcher } from '../../shared/protocol.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import type { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test } from '../helpers/fixtures.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const TTL_MS = 1500;
const POLL_MS = 100;
/** On Redis: the node in this process (`redisHub`) is called `local`. */
const it = test
  .extend('keyPrefix', { scope: 'file' }, 'presence:')
  .extend('hubConfig', { scope: 'file' }, { nodeName: 'local', presenceTtlMs: TTL_MS, presencePollMs: POLL_MS });

/** Resolves once `subscription.presence` satisfies `check` (checked now and on every presence event). */
function presenceWhere(
  subscription: Subscription,
  check: (watchers: readonly Watcher[]) => boolean,
): Promise<readonly Watcher[]> {
  return new Promise((resolve) => {
    if (check(subscription.presence)) return resolve(subscription.presence);
    const onPresence = (): void => {
      if (!check(subscription.presence)) return;
      subscription.off('presence', onPresence);
      resolve(subscription.presence);
    };
    subscription.on('presence', onPresence);
  });
}

const labels = (watchers: readonly Watcher[]): string[] => watchers.map((watcher) => watcher.label ?? '').sort();

describe('presence across two nodes of the memory engine', () => {
  const backend = new MemoryBackend();
  const stores = [new MemoryStore({ backend }), new MemoryStore({ backend })];
  const hubs: TestHub[] = [];
  const clients: HubClient[] = [];

  beforeAll(async () => {
    for (const [index, store] of stores.entries()) {
      hubs.push(await startHub({ store, nodeName: `mem-${index}`, presenceTtlMs: TTL_MS, presencePollMs: POLL_MS }));
    }
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all(hubs.map((hub) => hub.close()));
    await Promise.all(stores.map((store) => store.close()));
  });

  it('a following subscription sees watchers join and leave on both nodes; ordinary ones get nothing', async () => {
    const ui = new HubClient({ url: hubs[0]!.wsUrl });
    const agent = new HubClient({ url: hubs[1]!.wsUrl });
    const plain = new HubClient({ url: hubs[1]!.wsUrl });
    clients.push(ui, agent, plain);
    const watching = ui.subscribe('p/1', { presence: true, label: 'ui' });
    const changes: { joined: string[]; left: string[] }[] = [];
    watching.on('presence', (change) => changes.push({ joined: labels(change.joined), left: labels(change.left) }));
    await presenceWhere(watching, (watchers) => labels(watchers).join() === 'ui');

    const agentSubscription = agent.subscribe('p/1', { label: 'agent' });
    const plainSubscription = plain.subscribe('p/1');
    const both = await presenceWhere(watching, (watchers) => watchers.length === 3);
    expect(labels(both)).toEqual(['', 'agent', 'ui']);
    expect(both.find((watcher) => watcher.label === 'agent')).toMatchObject({ node: 'mem-1', subject: 'anonymous' });
    expect(both.find((watcher) => watcher.label === 'ui')).toMatchObject({ node: 'mem-0' });

    const response = await fetch(`${hubs[1]!.url}/v1/sessions/p%2F1/presence`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { watchers: Watcher[] };
    expect(labels(body.watchers)).toEqual(['', 'agent', 'ui']);

    agentSubscription.close();
    expect(labels(await presenceWhere(watching, (watchers) => watchers.length === 2))).toEqual(['', 'ui']);
    expect(changes.at(-1)).toEqual({ joined: [], left: ['agent'] });
    expect(plainSubscription.presence).toEqual([]);
  });

  it('a client that closes its socket leaves at once', async () => {
    const ui = new HubClient({ url: hubs[0]!.wsUrl });
    const other = new HubClient({ url: hubs[1]!.wsUrl });
    clients.push(ui);
    const watching = ui.subscribe('p/2', { presence: true, label: 'ui' });
    other.subscribe('p/2', { label: 'other' });
    await presenceWhere(watching, (watchers) => watchers.length === 2);
    other.close();
    expect(labels(await presenceWhere(watching, (watchers) => watchers.length === 1))).toEqual(['ui']);
  });

  it('refuses malformed presence options before sending anything', () => {
    const client = new HubClient({ url: hubs[0]!.wsUrl });
    clients.push(client);
    expect(() => client.subscribe('p/3', { label: 'x'.repeat(129) })).toThrow(/label/);
    expect(() => client.subscribe('p/3', { presence: 'yes' as unknown as boolean })).toThrow(/presence/);
  });
});

describe('presence on Redis when a node is killed with SIGKILL', () => {
  let store: RedisStore;
  let local: TestHub;
  // A child process: the test kills it.
  let remote: HubProcess;
  const clients: HubClient[] = [];

  it.beforeAll(async ({ redis, keyPrefix, redisStore, redisHub }) => {
    store = redisStore;
    local = redisHub;
    remote = await HubProcess.start(['--redis', redis.url, '--key-prefix', keyPrefix, '--node-name', 'remote'], {
      SESSION_HUB_PRESENCE_TTL_MS: String(TTL_MS),
    });
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) client.close();
    await remote?.kill();
  });

  it('the dead node’s watchers lapse within the TTL; the living ones stay', async () => {
    const ui = new HubClient({ url: local.wsUrl });
    const far = new HubClient({ url: remote.wsUrl });
    clients.push(ui, far);
    far.on('error', () => undefined);
    const watching = ui.subscribe('p/kill', { presence: true, label: 'ui' });
    far.subscribe('p/kill', { label: 'far-1' });
    far.subscribe('p/kill-other', { label: 'far-2' });
    const before = await presenceWhere(watching, (watchers) => watchers.length === 2);
    expect(before.find((watcher) => watcher.label === 'far-1')?.node).toBe('remote');

    // No close frames, no removal: only the TTL can take the dead node's watchers away.
    await remote.kill();
    const after = await presenceWhere(watching, (watchers) => watchers.length === 1);
    expect(labels(after)).toEqual(['ui']);
    expect(await store.presence.list('p/kill-other')).toEqual([]);
    expect(labels(await store.presence.list('p/kill'))).toEqual(['ui']);
  });
});
