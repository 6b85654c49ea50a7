import { createHub, type Hub, type HubAddress } from '../../server/hub.ts';
import type { HubConfig } from '../../server/config.ts';

/** A hub node started for a test on 127.0.0.1, port 0. */
export interface TestHub extends HubAddress {
  readonly hub: Hub;
  close(): Promise<void>;
}

/**
 * Start a real hub on a free loopback port with the given store (and any other config). Logs are silent unless
 * LOG_LEVEL is set. The store is not closed by `close()`.
 */
export async function startHub(config: HubConfig): Promise<TestHub> {
  const hub = createHub({
    logLevel: process.env['LOG_LEVEL'] ?? 'silent',
    ...config,
    port: config.port ?? 0,
    host: config.host ?? '127.0.0.1',
  });
  const address = await hub.listen();
  return { ...address, hub, close: () => hub.close() };
}
