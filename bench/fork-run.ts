/**
 * Fork benchmark: forking a session of 1,000 events and one of 1,000,000 (100,000 with --quick), in time and Redis
 * memory, against copying the events into a new session (what a fork cost before forks: export, import) measured in
 * the same run. A fork writes a constant number of keys and reads back only to the last turn boundary, so its cost
 * must not grow with the parent's length.
 *
 * In `npm run bench` (scenario `fork`), or on its own: `node --import tsx bench/fork-run.ts [--quick]`.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { forkSession } from '../server/append/fork-session.ts';
import { defaultLimits } from '../server/limits/limits.ts';
import { storeReadLimits } from '../server/limits/store-reads.ts';
import type { EventStore, ValidatedDraft } from '../server/store/event-store.ts';
import { LineageStore } from '../server/store/lineage/lineage-store.ts';
import { RedisStore } from '../server/store/redis/redis-store.ts';
import { RedisServer } from '../test/helpers/redis-server.ts';

export interface ForkSizeResult {
  /** Events in the parent. */
  readonly events: number;
  /** Median wall ms of one fork (the hub's whole fork: the rule's read-back and the two store scripts). */
  readonly forkMs: number;
  /** Redis bytes per fork: `MEMORY USAGE` of its keys, and its share of the parent's set of forks. */
  readonly forkBytes: number;
  /** Redis `used_memory` growth per fork over the forks made (allocator noise included). */
  readonly usedMemoryPerFork: number;
  /** Redis bytes of the parent's keys (`MEMORY USAGE`): what a copy of it would add. */
  readonly parentBytes: number;
  /** Wall ms of copying the parent's events into a new session (read pages, commit them), or null when not measured. */
  readonly copyMs: number | null;
  /** Events/s reading a fork's whole log (its prefix from the parent) in pages of 1,000 (`readStoredPage`). */
  readonly forkReadPerSecond: number;
  /** Events/s reading the parent's log the same way (the baseline). */
  readonly parentReadPerSecond: number;
  /** Pages/s reading one small page (`SMALL_PAGE` events from seq 0) of a fork's prefix, one after the other. */
  readonly forkPagesPerSecond: number;
  /** Pages/s reading the same page of the parent (the baseline: what a page costs without the lineage). */
  readonly parentPagesPerSecond: number;
}

/** The small page's length: round trips, not bytes, decide its cost. */
const SMALL_PAGE = 20;

export interface ForkBenchResult {
  readonly name: 'fork';
  readonly quick: boolean;
  readonly sizes: readonly ForkSizeResult[];
}

/** One turn of 5 events: the fork is asked at its `turn/end` (a turn boundary), as a "retry from here" would be. */
function turn(number: number): ValidatedDraft[] {
  return [
    { type: 'turn/start', data: { turn: number } },
    { type: 'step/start', data: { turn: number, step: 1 } },
    {
      type: 'assistant/message',
      data: { turn: number, step: 1, message: { role: 'assistant', content: `answer ${number}` } },
      surfaceOp: 'append',
    },
    { type: 'step/end', data: { turn: number, step: 1 } },
    { type: 'turn/end', data: { turn: number, reason: { kind: 'completed' } } },
  ];
}

/** Write `events` events (whole turns) into a new session in commits of 5,000. */
async function fill(store: EventStore, sessionId: string, events: number): Promise<void> {
  let seq = 0;
  let number = 1;
  while (seq < events) {
    const batch: ValidatedDraft[] = [];
    while (batch.length < 5000 && seq + batch.length < events) batch.push(...turn(number++));
    const result = await store.commit({ sessionId, expectedSeq: seq, events: batch });
    if (result.status !== 'committed') throw new Error(`fill: ${result.status}`);
    seq += batch.length;
  }
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

/** Copy a session's events into a new one, page by page (the baseline: a fork before forks). */
async function copy(store: EventStore, from: string, to: string): Promise<void> {
  for (let seq = 0; ;) {
    const events = await store.read(from, seq, 5000);
    if (events.length === 0) return;
    const drafts = events.map(({ seq: _seq, time: _time, ...draft }) => draft as ValidatedDraft);
    const result = await store.commit({ sessionId: to, expectedSeq: seq, events: drafts });
    if (result.status !== 'committed') throw new Error(`copy: ${result.status}`);
    seq += events.length;
  }
}

/** Events per second of reading a session's whole log in stored pages of 1,000 (best of 3). */
async function readRate(store: EventStore, sessionId: string): Promise<number> {
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    let seq = 0;
    for (;;) {
      const page = await store.readStoredPage(sessionId, seq, 1000);
      if (page.bodies.length === 0) break;
      seq += page.bodies.length;
    }
    best = Math.max(best, (seq * 1000) / (performance.now() - started));
  }
  return best;
}

/** Pages per second of reading the same small page of a session again and again (best of 3 rounds of 500). */
async function pageRate(store: EventStore, sessionId: string): Promise<number> {
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    for (let index = 0; index < 500; index++) {
      const page = await store.readStoredPage(sessionId, 0, SMALL_PAGE);
      if (page.bodies.length !== SMALL_PAGE) throw new Error(`pageRate: a page of ${page.bodies.length} events`);
    }
    best = Math.max(best, (500 * 1000) / (performance.now() - started));
  }
  return best;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measureSize(
  store: EventStore,
  redis: Redis,
  keyPrefix: string,
  events: number,
): Promise<ForkSizeResult> {
  const parent = `bench-fork-${events}-${randomUUID()}`;
  await fill(store, parent, events);
  const head = await store.head(parent);
  const reads = storeReadLimits(defaultLimits);
  const deps = { store, reads, authorize: async () => undefined };
  const forks = 200;
  const times: number[] = [];
  // Warm up the scripts and the code path.
  for (let index = 0; index < 20; index++) await forkSession({ sessionId: parent, atSeq: head.headSeq }, deps);
  const usage = async (sessionId: string, names: readonly string[]): Promise<number> => {
    let bytes = 0;
    for (const name of names) {
      bytes += Number((await redis.memory('USAGE', `${keyPrefix}{${sessionId}}:${name}`, 'SAMPLES', '0')) ?? 0);
    }
    return bytes;
  };
  const setBefore = await usage(parent, ['forks']);
  const before = await usedMemory(redis);
  const made: string[] = [];
  for (let index = 0; index < forks; index++) {
    const started = performance.now();
    const fork = await forkSession({ sessionId: parent, atSeq: head.headSeq - 5 * (index % 10) }, deps);
    times.push(performance.now() - started);
    made.push(fork.sessionId);
  }
  const after = await usedMemory(redis);
  let keyBytes = 0;
  for (const sessionId of made) keyBytes += await usage(sessionId, ['epoch', 'idem', 'fork', 'log']);
  const forkBytes = (keyBytes + (await usage(parent, ['forks'])) - setBefore) / forks;
  const parentBytes = await usage(parent, ['log', 'idem', 'epoch']);
  const [forkRead, parentRead] = [await readRate(store, made[0]!), await readRate(store, parent)];
  const [forkPages, parentPages] = [await pageRate(store, made[0]!), await pageRate(store, parent)];
  let copyMs: number | null = null;
  if (events <= 100_000) {
    const started = performance.now();
    await copy(store, parent, `${parent}-copy`);
    copyMs = performance.now() - started;
  }
  return {
    events,
    forkMs: median(times),
    forkBytes,
    usedMemoryPerFork: (after - before) / forks,
    parentBytes,
    copyMs,
    forkReadPerSecond: forkRead,
    parentReadPerSecond: parentRead,
    forkPagesPerSecond: forkPages,
    parentPagesPerSecond: parentPages,
  };
}

export async function runForkBench(options: {
  readonly quick: boolean;
  readonly redisUrl: string;
}): Promise<ForkBenchResult> {
  const keyPrefix = `bench-fork-${randomUUID().slice(0, 8)}:`;
  const raw = await RedisStore.open({ url: options.redisUrl, keyPrefix, commandTimeoutMs: 30_000 });
  const store = LineageStore.over(raw);
  const redis = new Redis(options.redisUrl);
  try {
    const sizes: ForkSizeResult[] = [];
    for (const events of [1000, options.quick ? 100_000 : 1_000_000]) {
      sizes.push(await measureSize(store, redis, keyPrefix, events));
    }
    return { name: 'fork', quick: options.quick, sizes };
  } finally {
    redis.disconnect();
    await store.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.argv.includes('--quick');
  const server = await RedisServer.start();
  try {
    console.log(JSON.stringify(await runForkBench({ quick, redisUrl: server.url }), null, 2));
  } finally {
    await server.stop();
  }
}
