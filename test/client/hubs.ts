// Real hub nodes for the SDK tests, on top of test/helpers/hub.ts.
import { HubClient, type HubClientOptions } from '../../client/index.ts';
import { MemoryStore, RedisStore } from '../../server/index.ts';
import type { EventStore, Hub } from '../../server/index.ts';
import type { GroupCommitRequest, GroupCommitResult } from '../../server/store/event-store.ts';
import type { HubConfig } from '../../server/config.ts';
import { startHub } from '../helpers/hub.ts';
import { suiteFixture } from '../helpers/suite-fixture.ts';

export interface Node {
  readonly hub: Hub;
  readonly port: number;
  readonly wsUrl: string;
}

/** Start a hub node on `store` (port 0 = a free one). The store is not closed with the node. */
export async function startNode(store: EventStore, port = 0): Promise<Node> {
  const started = await startHub({ store, port });
  return { hub: started.hub, port: started.port, wsUrl: started.wsUrl };
}

export function memoryStore(): EventStore {
  return new MemoryStore();
}

export async function redisStore(url: string): Promise<EventStore> {
  return RedisStore.open({ url });
}

export function wsUrl(port: number): string {
  return `ws://127.0.0.1:${port}/v1/ws`;
}

export interface MemoryHubFixture {
  readonly store: EventStore;
  readonly node: Node;
  readonly client: HubClient;
}

/**
 * For a describe block: one hub node on a memory store (with `hubConfig`) and one `HubClient` (with
 * `clientOptions`) connected to it, started before the block's tests and closed after them. Read the fields inside
 * tests (they are set by `beforeAll`).
 */
export function useMemoryHubClient(
  hubConfig: Omit<HubConfig, 'store' | 'port'> = {},
  clientOptions: Omit<HubClientOptions, 'url'> = {},
): MemoryHubFixture {
  return suiteFixture(
    'useMemoryHubClient',
    async () => {
      const store = memoryStore();
      const started = await startHub({ ...hubConfig, store });
      const node = { hub: started.hub, port: started.port, wsUrl: started.wsUrl };
      return { store, node, client: new HubClient({ ...clientOptions, url: node.wsUrl }) };
    },
    async ({ store, node, client }) => {
      client.close();
      await node.hub.close();
      await store.close();
    },
  );
}

/** A memory store that holds its first commit until the test lets it go. */
export class HeldStore extends MemoryStore {
  release = (): void => undefined;
  readonly #gate = new Promise<void>((resolve) => {
    this.release = resolve;
  });
  #first = true;

  override async commitGroup(request: GroupCommitRequest): Promise<GroupCommitResult> {
    if (this.#first) {
      this.#first = false;
      await this.#gate;
    }
    return super.commitGroup(request);
  }
}
