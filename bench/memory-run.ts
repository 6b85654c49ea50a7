import { setTimeout as sleep } from 'node:timers/promises';
import type { Closable } from './clients/types.ts';
import type { ChildSample } from './child/messages.ts';
import type { ServerProcess } from './child/spawn.ts';
import { stopAll, type SystemTarget } from './targets.ts';

export interface IdleMemoryResult {
  readonly connections: number;
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  readonly heapBeforeBytes: number;
  readonly heapAfterBytes: number;
  /** (RSS after − RSS before) / connections, both after full GC. */
  readonly rssPerConnectionBytes: number;
  readonly heapPerConnectionBytes: number;
  /** V8 heap committed (used and free) per connection: RSS minus this is native memory (sockets, malloc). */
  readonly heapTotalPerConnectionBytes: number;
  readonly externalPerConnectionBytes: number;
  /**
   * The next `connections` on the same server: (RSS after 2N − RSS after N) / N, and the same for the heap. The
   * first N also pay for what a process grows once under any load (V8's young generation reaching its size, malloc
   * arenas): this is what each further connection costs, the figure to size a node by.
   */
  readonly marginalRssPerConnectionBytes: number;
  readonly marginalHeapPerConnectionBytes: number;
}

/** Open `count` idle subscribers (each to its own session `${label}-i`), 100 at a time. */
export async function connectAll(
  target: SystemTarget,
  port: number,
  count: number,
  label: string,
): Promise<Closable[]> {
  const connections: Closable[] = [];
  for (let first = 0; first < count; first += 100) {
    const batch = Array.from({ length: Math.min(100, count - first) }, (_, offset) =>
      target.system.subscribe(port, `${label}-${first + offset}`, () => undefined),
    );
    connections.push(...(await Promise.all(batch)));
  }
  return connections;
}

/** How many settle rounds at most, and how close two rounds' heaps must be (share of the growth) to be settled. */
const MAX_SETTLE_ROUNDS = 10;
const SETTLED_SHARE = 0.02;

/**
 * The server's memory after GC once the connections' background work is done: every subscriber is live when it
 * was opened, but the server may still have store writes in flight for them (presence, notification channels),
 * many more under load. Samples every `settleMs` until the heap stops moving (two rounds within 2 % of the growth).
 */
export async function settledSample(server: ServerProcess, heapBefore: number, settleMs: number): Promise<ChildSample> {
  await sleep(settleMs);
  let sample = await server.sampleAfterGc();
  for (let round = 1; round < MAX_SETTLE_ROUNDS; round++) {
    await sleep(settleMs);
    const next = await server.sampleAfterGc();
    const growth = Math.max(1, next.heapUsedBytes - heapBefore);
    const settled = Math.abs(next.heapUsedBytes - sample.heapUsedBytes) <= SETTLED_SHARE * growth;
    sample = next;
    if (settled) break;
  }
  return sample;
}

/**
 * Scenario 4: RSS per idle subscribed connection. The server runs with --expose-gc; each connection subscribes to
 * its own session (a UI watching one agent). A warm-up round of connections first loads every code path, then
 * the server's memory is sampled after full GC before and after `connections` idle subscribers (once settled), and
 * once more after as many again (the marginal cost per connection).
 */
export async function measureIdleMemory(
  target: SystemTarget,
  connections: number,
  settleMs = 1000,
): Promise<IdleMemoryResult> {
  const [server] = await target.start(1, { exposeGc: true });
  if (server === undefined) throw new Error('no server');
  const port = server.ports[0]!;
  const label = `bench-idle-${Date.now()}`;
  try {
    const warmup = await connectAll(target, port, 200, `${label}-warmup`);
    for (const connection of warmup) connection.close();
    await sleep(settleMs / 2);
    const before = await server.sampleAfterGc();
    const open = await connectAll(target, port, connections, label);
    const after = await settledSample(server, before.heapUsedBytes, settleMs);
    open.push(...(await connectAll(target, port, connections, `${label}-more`)));
    const more = await settledSample(server, after.heapUsedBytes, settleMs);
    for (const connection of open) connection.close();
    return {
      connections,
      rssBeforeBytes: before.rssBytes,
      rssAfterBytes: after.rssBytes,
      heapBeforeBytes: before.heapUsedBytes,
      heapAfterBytes: after.heapUsedBytes,
      rssPerConnectionBytes: (after.rssBytes - before.rssBytes) / connections,
      heapPerConnectionBytes: (after.heapUsedBytes - before.heapUsedBytes) / connections,
      heapTotalPerConnectionBytes: (after.heapTotalBytes - before.heapTotalBytes) / connections,
      externalPerConnectionBytes: (after.externalBytes - before.externalBytes) / connections,
      marginalRssPerConnectionBytes: (more.rssBytes - after.rssBytes) / connections,
      marginalHeapPerConnectionBytes: (more.heapUsedBytes - after.heapUsedBytes) / connections,
    };
  } finally {
    await stopAll([server]);
  }
}
