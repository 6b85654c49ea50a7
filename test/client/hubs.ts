// Real hub nodes for the SDK tests, on top of test/helpers/hub.ts.
import { MemoryStore, RedisStore } from '../../server/index.ts';
import type { EventStore, Hub } from '../../server/index.ts';
import type { GroupCommitRequest, GroupCommitResult } from '../../server/store/event-store.ts';
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
