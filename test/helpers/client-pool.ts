import { HubClient, type HubClientOptions } from '../../client/index.ts';
import type { HubAddress } from '../../server/hub.ts';

/** SDK clients a suite opens on its hub nodes, closed together when it ends (`closeAll` in an `afterAll`). */
export interface ClientPool {
  /** A new `HubClient` on `node`'s WebSocket endpoint, with `options` (a token, …). */
  connect(node: Pick<HubAddress, 'wsUrl'>, options?: Omit<HubClientOptions, 'url'>): HubClient;
  closeAll(): void;
}

export function clientPool(): ClientPool {
  const clients: HubClient[] = [];
  return {
    connect: (node, options = {}) => {
      const client = new HubClient({ ...options, url: node.wsUrl });
      clients.push(client);
      return client;
    },
    closeAll: () => {
      for (const client of clients.splice(0)) client.close();
    },
  };
}
