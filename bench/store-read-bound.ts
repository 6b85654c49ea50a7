/**
 * `node --import tsx bench/store-read-bound.ts [--quick]`: what bounding every store read by bytes costs, and what
 * it bounds. A session is read from seq 0 to its head page by page as a fresh hub node reads it (a new
 * `StoreReadSizer` per pass, default limits), each page either bounded (`maxBytes`: the sizer's budget, as the hub
 * reads now) or not (the count alone, as the hub read before), through the Redis engine's raw reader (one Redis,
 * the default) and through ioredis (a Cluster, TLS: the bounded script against `MULTI`), against a redis-server it
 * starts itself. Two sessions: 10,000 small events (the common case: what the bound costs) and one whose events
 * grow from tiny to ~250 KB (what it bounds: the largest page a read returned). Bounded and unbounded passes
 * alternate (which goes first too); the fastest pass of each counts.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { EventStore, ValidatedDraft } from '../server/store/event-store.ts';
import { RedisStore } from '../server/store/redis/redis-store.ts';
import { defaultLimits } from '../server/limits/limits.ts';
import { largestBody, StoreReadSizer, storeReadLimits, endedLog } from '../server/limits/store-reads.ts';
import { RedisServer } from '../test/helpers/redis-server.ts';

export interface ReadPass {
  /** Wall ms to read the whole session. */
  readonly ms: number;
  /** Store reads it took. */
  readonly reads: number;
  /** Bytes of bodies of the largest page returned. */
  readonly largestPage: number;
}

export interface ReadBoundRow {
  readonly session: string;
  readonly path: 'raw' | 'ioredis';
  readonly events: number;
  readonly bounded: ReadPass;
  readonly unbounded: ReadPass;
  /** Raw replies past their budget during the bounded passes (read again by the bounded script). */
  readonly overBudget: number;
}

const limits = storeReadLimits(defaultLimits);

/** Read `sessionId` from 0 to its end as a fresh node does; `bounded`: with the sizer's `maxBytes`. */
export async function readWhole(store: EventStore, sessionId: string, bounded: boolean): Promise<ReadPass> {
  const sizer = new StoreReadSizer(limits);
  const started = performance.now();
  let from = 0;
  let reads = 0;
  let largestPage = 0;
  for (;;) {
    const limit = sizer.count;
    const page = await store.readStoredPage(sessionId, from, limit, bounded ? sizer.maxBytes : undefined);
    reads++;
    sizer.observe(largestBody(page.bodies));
    largestPage = Math.max(
      largestPage,
      page.bodies.reduce((sum, body) => sum + body.length, 0),
    );
    from += page.bodies.length;
    if (page.bodies.length === 0 || endedLog(page.bodies.length, limit, page.truncated)) break;
  }
  return { ms: performance.now() - started, reads, largestPage };
}

const best = (passes: readonly ReadPass[]): ReadPass =>
  passes.reduce((fastest, pass) => (pass.ms < fastest.ms ? pass : fastest));

/** The sessions: `small` events of ~160 bytes, and `tiny` tiny ones followed by `grown` of ~250 KB. */
export async function writeSessions(
  store: EventStore,
  sizes: { readonly small: number; readonly tiny: number; readonly grown: number },
): Promise<{ readonly name: string; readonly sessionId: string; readonly events: number }[]> {
  const write = async (sessionId: string, drafts: ValidatedDraft[]): Promise<void> => {
    for (let first = 0; first < drafts.length; first += 4) {
      const events = drafts.slice(first, first + 4);
      const result = await store.commit({ sessionId, expectedSeq: first, events });
      if (result.status !== 'committed') throw new Error(`bench: commit ${result.status}`);
    }
  };
  const text = (bytes: number): string => 'lorem ipsum dolor sit amet, '.repeat(Math.ceil(bytes / 28)).slice(0, bytes);
  const small = Array.from({ length: sizes.small }, (_, index) => ({
    type: 'assistant/chunk',
    data: { index, text: text(120) },
  }));
  const growing = [
    ...Array.from({ length: sizes.tiny }, (_, index) => ({ type: 'assistant/chunk', data: { index } })),
    ...Array.from({ length: sizes.grown }, (_, index) => ({
      type: 'tool/result',
      data: { index, output: text(250_000) },
    })),
  ];
  await write('bench/small', small);
  await write('bench/growing', growing);
  return [
    { name: `${sizes.small} × 160 B`, sessionId: 'bench/small', events: small.length },
    { name: `${sizes.tiny} tiny, then ${sizes.grown} × 250 KB`, sessionId: 'bench/growing', events: growing.length },
  ];
}

/** Every session through both paths: `passes` bounded and `passes` unbounded reads each, alternating. */
export async function measureReadBound(options: {
  readonly redisUrl: string;
  readonly sizes: { readonly small: number; readonly tiny: number; readonly grown: number };
  readonly passes: number;
}): Promise<ReadBoundRow[]> {
  const keyPrefix = `bench-bound-${process.pid}-${Date.now()}:`;
  const raw = await RedisStore.open({ url: options.redisUrl, keyPrefix });
  const viaIoredis = await RedisStore.open({ url: options.redisUrl, keyPrefix, rawReads: false });
  const rows: ReadBoundRow[] = [];
  try {
    const sessions = await writeSessions(raw, options.sizes);
    for (const session of sessions) {
      for (const [path, store] of [
        ['raw', raw],
        ['ioredis', viaIoredis],
      ] as const) {
        const bounded: ReadPass[] = [];
        const unbounded: ReadPass[] = [];
        const overBefore = store.counters.rawReadsOverBudget ?? 0;
        for (let pass = 0; pass < options.passes; pass++) {
          // Which goes first alternates: neither always reads right after the other warmed Redis up.
          for (const isBounded of pass % 2 === 0 ? [true, false] : [false, true]) {
            (isBounded ? bounded : unbounded).push(await readWhole(store, session.sessionId, isBounded));
          }
        }
        const overBudget = (store.counters.rawReadsOverBudget ?? 0) - overBefore;
        rows.push({
          session: session.name,
          path,
          events: session.events,
          bounded: best(bounded),
          unbounded: best(unbounded),
          overBudget,
        });
      }
    }
  } finally {
    await Promise.all([raw.close(), viaIoredis.close()]);
  }
  return rows;
}

const MiB = 1024 * 1024;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.argv.includes('--quick');
  const redis = await RedisServer.start();
  try {
    const rows = await measureReadBound({
      redisUrl: redis.url,
      sizes: quick ? { small: 2_000, tiny: 100, grown: 20 } : { small: 10_000, tiny: 200, grown: 40 },
      passes: quick ? 5 : 15,
    });
    console.log(
      `read budget ${(limits.readBytes / MiB).toFixed(0)} MiB; fastest of the passes; bounded vs the count alone`,
    );
    console.log(
      'session                         path      events/s bounded  unbounded  ratio   reads b/u   largest page MiB b/u  over budget',
    );
    for (const row of rows) {
      const rate = (pass: ReadPass): number => (row.events / pass.ms) * 1000;
      console.log(
        `${row.session.padEnd(31)} ${row.path.padEnd(8)} ${rate(row.bounded).toFixed(0).padStart(17)} ${rate(row.unbounded).toFixed(0).padStart(10)} ${(rate(row.bounded) / rate(row.unbounded)).toFixed(2).padStart(6)}× ${`${row.bounded.reads}/${row.unbounded.reads}`.padStart(11)} ${`${(row.bounded.largestPage / MiB).toFixed(2)}/${(row.unbounded.largestPage / MiB).toFixed(2)}`.padStart(21)} ${String(row.overBudget).padStart(12)}`,
      );
    }
  } finally {
    await redis.stop();
  }
}
