import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { createHub, RedisStore } from '../../server/index.ts';
import { atMost, type Row } from '../report.ts';
import type { BenchContext } from '../targets.ts';

/** Sessions listed, and pages read per round. */
const SESSIONS = { quick: 1000, full: 10_000 };
const ROUNDS = { quick: 5, full: 5 };
const EVENTS_PER_SESSION = 20;

export interface ListingResult {
  readonly sessions: number;
  /** Median time of the first page (100 rows) of `GET /v1/sessions`, over HTTP. */
  readonly pageMs: number;
  /** Median time of the baseline: SCAN of the epoch keys plus a pipelined XLEN and XREVRANGE per session. */
  readonly scanMs: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The least any listing by activity reads without an index: every session's id, length and last entry. */
async function rawScan(redis: Redis, prefix: string): Promise<number> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*:epoch`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  const pipeline = redis.pipeline();
  for (const key of keys) {
    const log = `${key.slice(0, -'epoch'.length)}log`;
    pipeline.xlen(log).xrevrange(log, '+', '-', 'COUNT', 1);
  }
  await pipeline.exec();
  return keys.length;
}

/**
 * Scenario: the session listing (`GET /v1/sessions`, most recently active first) over N sessions of 20 events with
 * a title and labels, against an in-process hub on the bench Redis; baseline, in the same rounds: the raw reads any
 * listing by activity needs without an index (SCAN of the epoch keys, pipelined XLEN + XREVRANGE per session).
 */
export async function runListing(
  context: BenchContext,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: ListingResult }> {
  const keyPrefix = `bl${Date.now() % 100_000}:`;
  const store = await RedisStore.open({ url: context.redisUrl, keyPrefix });
  const hub = createHub({ store, port: 0, logLevel: 'silent' });
  const redis = new Redis(context.redisUrl);
  try {
    const { url } = await hub.listen();
    const count = context.quick ? SESSIONS.quick : SESSIONS.full;
    const started = performance.now();
    for (let start = 0; start < count; start += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, count - start) }, async (_, offset) => {
          const sessionId = `tenant/s-${start + offset}`;
          const events = Array.from({ length: EVENTS_PER_SESSION }, (__, n) => ({ type: 'bench/note', data: { n } }));
          await store.commit({ sessionId, expectedSeq: 0, events });
          await store.metadata.patch(sessionId, { title: `session ${start + offset}`, labels: { team: 'red' } });
        }),
      );
    }
    log(`listing: wrote ${count.toLocaleString('en-US')} sessions in ${Math.round(performance.now() - started)} ms`);
    const pages: number[] = [];
    const scans: number[] = [];
    for (let round = 0; round < (context.quick ? ROUNDS.quick : ROUNDS.full); round++) {
      let begin = performance.now();
      const response = await fetch(`${url}/v1/sessions?limit=100`);
      const body = (await response.json()) as { sessions: unknown[] };
      pages.push(performance.now() - begin);
      if (body.sessions.length !== 100) throw new Error(`listing: a page of ${body.sessions.length} rows`);
      begin = performance.now();
      const scanned = await rawScan(redis, keyPrefix);
      scans.push(performance.now() - begin);
      if (scanned !== count) throw new Error(`listing: the scan found ${scanned} sessions`);
    }
    const result: ListingResult = { sessions: count, pageMs: median(pages), scanMs: median(scans) };
    log(
      `listing ${count} sessions: first page ${result.pageMs.toFixed(1)} ms, raw scan ${result.scanMs.toFixed(1)} ms`,
    );
    return { rows: listingRows(result), raw: result };
  } finally {
    redis.disconnect();
    await hub.close();
    await store.close();
  }
}

/** Table rows of the listing scenario (pure). */
export function listingRows(result: ListingResult): Row[] {
  return [
    {
      scenario: `session listing, ${result.sessions.toLocaleString('en-US')} sessions`,
      metric: 'first page of 100, by activity (median)',
      unit: 'ms',
      hub: result.pageMs,
      baselineName: 'SCAN + pipelined XLEN/XREVRANGE',
      baseline: result.scanMs,
      target: '≤ 3× baseline',
      met: atMost(result.pageMs, 3 * result.scanMs),
    },
  ];
}
