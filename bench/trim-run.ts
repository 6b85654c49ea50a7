/**
 * What trimming a session's hot log costs and gives back (issue 29, docs/storage.md#trimming), on a Redis it starts
 * itself, through `RedisStore`:
 * - catch-up pages (`readStoredPage`, raw RESP, 1,000 events) of the kept part of a trimmed session next to the same
 *   reads of a session never trimmed (baseline, same run): the base read with every page must cost nothing visible;
 * - one `trim` of N events (one script: Redis does nothing else meanwhile) next to committing the same N events in
 *   batches of 500 (baseline): how long a trim blocks Redis, so the archiver knows how much to trim per call;
 * - Redis `used_memory` before and after trimming 90 % of the events (baseline: the server before any event).
 *
 * Run on its own: `node --conditions=source --import tsx bench/trim-run.ts [--events 200000]`.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { RedisStore } from '../server/index.ts';
import type { ValidatedDraft } from '../server/store/event-store.ts';
import { RedisServer } from '../test/helpers/redis-server.ts';

const { values } = parseArgs({ options: { events: { type: 'string' } } });
const total = Number(values.events ?? 200_000);
const PAGE = 1_000;
const BATCH = 500;

const drafts = (from: number, count: number): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({
    type: 'assistant/chunk',
    data: { turn: 1, step: 1, chunk: `piece ${from + index} of a long answer, about eighty bytes of text in all` },
  }));

async function fill(store: RedisStore, sessionId: string, count: number): Promise<{ epoch: string; ms: number }> {
  const started = performance.now();
  let epoch = '';
  for (let seq = 0; seq < count; seq += BATCH) {
    const result = await store.commit({
      sessionId,
      expectedSeq: seq,
      events: drafts(seq, Math.min(BATCH, count - seq)),
    });
    if (result.status !== 'committed') throw new Error(`fill ${sessionId}: ${result.status}`);
    epoch = result.epoch;
  }
  return { epoch, ms: performance.now() - started };
}

/** Best ms per 1,000-event page over `rounds` reads of the pages from `fromSeq` to the end. */
async function pageMs(store: RedisStore, sessionId: string, fromSeq: number, rounds: number): Promise<number> {
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    let pages = 0;
    for (let seq = fromSeq; seq < total; seq += PAGE) {
      const page = await store.readStoredPage(sessionId, seq, PAGE);
      if (page.firstSeq !== seq || page.times.length === 0) throw new Error('short page');
      pages++;
    }
    best = Math.min(best, (performance.now() - started) / pages);
  }
  return best;
}

async function usedMemory(admin: Redis): Promise<number> {
  const info = await admin.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  const redis = await RedisServer.start();
  const store = await RedisStore.open({ url: redis.url });
  const admin = new Redis(redis.url);
  try {
    const empty = await usedMemory(admin);
    const kept = await fill(store, 'kept', total);
    const trimmed = await fill(store, 'trimmed', total);
    const half = total / 2;
    await store.trim({ sessionId: 'trimmed', epoch: trimmed.epoch, beforeSeq: half });
    await pageMs(store, 'kept', half, 2); // warm-up (the raw socket, the JIT)
    await pageMs(store, 'trimmed', half, 2);
    // Interleaved, best of 7 each: the machine's noise falls on both alike.
    let untrimmedPage = Infinity;
    let trimmedPage = Infinity;
    for (let round = 0; round < 7; round++) {
      untrimmedPage = Math.min(untrimmedPage, await pageMs(store, 'kept', half, 1));
      trimmedPage = Math.min(trimmedPage, await pageMs(store, 'trimmed', half, 1));
    }
    const rows: string[][] = [
      [
        `catch-up page (${PAGE} events) of the kept half`,
        `${trimmedPage.toFixed(2)} ms`,
        'never trimmed',
        `${untrimmedPage.toFixed(2)} ms`,
        (trimmedPage / untrimmedPage).toFixed(2),
      ],
    ];
    // One trim of N events against committing N: how long one trim call holds Redis.
    let from = half;
    for (const count of [1_000, 10_000, 50_000]) {
      if (from + count > total) break;
      const started = performance.now();
      const result = await store.trim({ sessionId: 'trimmed', epoch: trimmed.epoch, beforeSeq: from + count });
      const ms = performance.now() - started;
      if (result.removed !== count) throw new Error(`trim removed ${result.removed}, not ${count}`);
      from += count;
      const commitMs = (kept.ms * count) / total;
      rows.push([
        `trim ${count} events (one call)`,
        `${ms.toFixed(1)} ms`,
        `commit ${count}`,
        `${commitMs.toFixed(1)} ms`,
        (ms / commitMs).toFixed(3),
      ]);
    }
    // Memory: trim 90 % of 'kept' and see what Redis gives back.
    const before = await usedMemory(admin);
    for (let beforeSeq = 20_000; beforeSeq <= total * 0.9; beforeSeq += 20_000) {
      await store.trim({ sessionId: 'kept', epoch: kept.epoch, beforeSeq });
    }
    const after = await usedMemory(admin);
    rows.push([
      `used_memory after trimming 90 % of one session`,
      mb(after - empty),
      'before the trim',
      mb(before - empty),
      ((after - empty) / (before - empty)).toFixed(2),
    ]);
    const header = ['figure', 'value', 'baseline', 'baseline value', 'ratio'];
    const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column]!.length)));
    for (const row of [header, ...rows])
      console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '));
    console.log(`(${total} events of ~120 bytes per session, two sessions; memory net of the empty server)`);
  } finally {
    admin.disconnect();
    await store.close();
    await redis.stop();
  }
}

await main();
