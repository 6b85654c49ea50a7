import { ServerProcess } from './child/spawn.ts';
import type { FanoutSystem } from './clients/types.ts';
import { socketIoSystem } from './clients/socketio-clients.ts';
import { wsRelaySystem } from './clients/ws-relay-clients.ts';

/** Shared context of one bench run. */
export interface BenchContext {
  readonly quick: boolean;
  readonly redisUrl: string;
  /** Seed URLs of a Redis Cluster: hub nodes use it instead of `redisUrl` (the cluster scenario). */
  readonly redisCluster?: readonly string[];
  /** Where hub children write CPU profiles (only with --profile). */
  readonly cpuProfileDir?: string;
}

/** A system under test: how to start its server processes and how its clients talk to them. */
export interface SystemTarget {
  readonly system: FanoutSystem;
  /** Start `nodes` server processes (each one node, own port), all on the bench Redis. */
  start(nodes: number, options?: { readonly exposeGc?: boolean }): Promise<ServerProcess[]>;
}

let counter = 0;

async function startBaseline(
  name: string,
  config: unknown,
  nodes: number,
  exposeGc: boolean,
): Promise<ServerProcess[]> {
  return Promise.all(
    Array.from({ length: nodes }, (_, node) =>
      ServerProcess.start({ entry: 'baseline-process.ts', config, exposeGc, name: `${name}-${node}-${++counter}` }),
    ),
  );
}

/** The raw `ws` relay (one process only: it is the single-process ceiling). */
export function wsRelayTarget(): SystemTarget {
  return {
    system: wsRelaySystem,
    start: (nodes, options) => startBaseline('ws-relay', { kind: 'ws-relay' }, nodes, options?.exposeGc === true),
  };
}

/** The raw `ws` relay that stores each frame with `XADD` (and publishes it to the other nodes) before forwarding. */
export function xaddRelayTarget(context: BenchContext): SystemTarget {
  return {
    system: { ...wsRelaySystem, name: 'ws relay + XADD' },
    start: (nodes, options) =>
      startBaseline(
        'xadd-relay',
        { kind: 'xadd-relay', redisUrl: context.redisUrl },
        nodes,
        options?.exposeGc === true,
      ),
  };
}

/** Socket.IO with the Redis streams adapter on the bench Redis. */
export function socketIoTarget(context: BenchContext): SystemTarget {
  return {
    system: socketIoSystem,
    start: (nodes, options) =>
      startBaseline('socketio', { kind: 'socketio', redisUrl: context.redisUrl }, nodes, options?.exposeGc === true),
  };
}

/** Stop server processes, ignoring ones that already died. */
export async function stopAll(servers: readonly ServerProcess[]): Promise<void> {
  await Promise.all(servers.map((server) => server.stop().catch(() => undefined)));
}

/** Replaying a session from seq 0 as a new subscriber. */
export interface CatchUpRun {
  readonly events: number;
  /** From the subscribe request to the last catch-up event. */
  readonly lastEventMs: number;
  /** From the subscribe request to `live`. */
  readonly timeToLiveMs: number;
}

/** The client an append goes through: the SDK (`HubClient`) or the bare protocol (`ws` + codec). */
export type AppendClient = 'SDK' | 'raw';

/** An appender for the append scenario (one connection; any session). */
export interface BenchAppender {
  append(sessionId: string, firstIndex: number, size: number, sentAtMs: number): Promise<void>;
  close(): void;
}

/** The hub, seen from the bench: the fan-out clients plus what the other scenarios need. */
export interface HubTarget extends SystemTarget {
  /** One connection appending bench events, through the SDK (`HubClient`) or the bare protocol. */
  appender(port: number, client: AppendClient): Promise<BenchAppender>;
  /** A new raw-protocol subscriber replays `sessionId` from seq 0 until `live`. */
  catchUp(port: number, sessionId: string): Promise<CatchUpRun>;
}
