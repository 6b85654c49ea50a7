// Real hub nodes for the SDK tests, on top of test/helpers/hub.ts.
import { afterAll, beforeAll } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { MemoryStore, RedisStore } from '../../server/index.ts';
import type { EventStore, GroupCommitRequest, GroupCommitResult, Hub } from '../../server/index.ts';
import { startHub } from '../helpers/hub.ts';

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
 * For a describe block: one hub node on a memory store and one `HubClient` connected to it, started before the
 * block's tests and closed after them. Read the fields inside tests (they are set by `beforeAll`).
 */
export function useMemoryHubClient(): MemoryHubFixture {
  let started: MemoryHubFixture | undefined;
  const current = (): MemoryHubFixture => {
    if (started === undefined) throw new Error('useMemoryHubClient: read the fixture inside a test');
    return started;
  };
  beforeAll(async () => {
    const store = memoryStore();
    const node = await startNode(store);
    started = { store, node, client: new HubClient({ url: node.wsUrl }) };
  });
  afterAll(async () => {
    if (started === undefined) return;
    started.client.close();
    await started.node.hub.close();
    await started.store.close();
  });
  return {
    get store() {
      return current().store;
    },
    get node() {
      return current().node;
    },
    get client() {
      return current().client;
    },
  };
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
