import { HubProcess } from '../helpers/hub-process.ts';
import { RedisServer } from '../helpers/redis-server.ts';

/** How a CLI suite starts hub processes: the memory engine, or Redis (its own redis-server for the suite). */
export interface HubEngine {
  readonly name: 'memory' | 'redis';
  /** Start a hub process on this engine (each Redis hub gets its own key prefix, so hubs do not share logs). */
  startHub(args?: readonly string[], env?: Record<string, string>): Promise<HubProcess>;
  stop(): Promise<void>;
}

let prefixes = 0;

export const hubEngines: readonly { readonly name: 'memory' | 'redis'; open(): Promise<HubEngine> }[] = [
  {
    name: 'memory',
    open: async () => ({
      name: 'memory',
      startHub: (args = [], env = {}) => HubProcess.start(args, env),
      stop: async () => {},
    }),
  },
  {
    name: 'redis',
    open: async () => {
      const redis = await RedisServer.start();
      return {
        name: 'redis',
        startHub: (args = [], env = {}) =>
          HubProcess.start(['--redis', redis.url, '--key-prefix', `cli${++prefixes}:`, ...args], env),
        stop: () => redis.stop(),
      };
    },
  },
];
