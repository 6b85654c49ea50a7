// One hub node on a store engine (memory, or Redis on its own redis-server) for a describe block.
import type { HubConfig } from '../../server/config.ts';
import type { EventStore } from '../../server/index.ts';
import type { Engine } from '../helpers/engines.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { suiteFixture } from '../helpers/suite-fixture.ts';

export interface EngineHub {
  readonly store: EventStore;
  readonly hub: TestHub;
}

/** Started before the block's tests, stopped after them; read the fields inside tests. */
export function useEngineHub(open: () => Promise<Engine>, config: Omit<HubConfig, 'store'> = {}): EngineHub {
  return suiteFixture(
    'useEngineHub',
    async () => {
      const engine = await open();
      const hub = await startHub({ ...config, store: engine.store });
      return { engine, store: engine.store, hub };
    },
    async ({ engine, hub }) => {
      await hub.close();
      await engine.store.close();
      await engine.stop();
    },
  );
}
