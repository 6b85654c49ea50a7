/**
 * Part of `npm run bench -- --only archive-tier` (bench/archive-tier.ts): a hub node's append latency at a steady
 * 200 appends/s (HTTP, one event each, one session) while other sessions keep arriving in Redis (1,000-event
 * sessions committed beside it, 5 a second), with the node's archiver moving them out (a tick every 250 ms: serve's shortest; idle after
 * 1 ms), next to the same run without the archiver. Both runs write the same load; only the archiving differs.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { createHub, RedisStore } from '../server/index.ts';
import { Archiver } from '../server/archive/archiver.ts';
import { FileArchive } from '../server/archive/file/file-archive.ts';
import { fillSessionInStore } from './baselines/xrange.ts';
import { LatencyRecorder, type LatencySummary } from './stats.ts';
import type { BenchContext } from './targets.ts';

const RATE = 200;

/** Appends at `RATE`/s for `seconds` (paced by the clock, not by the answers); their latencies. */
async function appendAt(url: string, sessionId: string, seconds: number): Promise<LatencySummary> {
  const recorder = new LatencyRecorder();
  const path = `${url}/v1/sessions/${encodeURIComponent(sessionId)}/events`;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let index = 0; index < RATE * seconds; index++) {
    const due = start + (index * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const sent = performance.now();
    pending.push(
      fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ type: 'test/tick', data: { index } }] }),
      }).then(async (response) => {
        await response.arrayBuffer();
        if (response.status !== 201) throw new Error(`archive-append: append answered ${response.status}`);
        recorder.recordMs(performance.now() - sent);
      }),
    );
  }
  await Promise.all(pending);
  return recorder.summary();
}

/** One run: the hub, the background sessions, and (with `archiving`) the archiver; the append latencies. */
async function oneRun(
  context: BenchContext,
  archiving: boolean,
  seconds: number,
): Promise<{ latency: LatencySummary; runs: number }> {
  const keyPrefix = `bench-aa-${randomUUID().slice(0, 8)}:`;
  const store = await RedisStore.open({ url: context.redisUrl, keyPrefix });
  const writer = await RedisStore.open({ url: context.redisUrl, keyPrefix });
  const dir = await mkdtemp(join(tmpdir(), 'sh-bench-aa-'));
  const archive = new FileArchive({ dir });
  await archive.open();
  const logger = pino({ level: 'silent' });
  const hub = createHub({ store, archive, port: 0, logger, logLifecycle: false });
  const archiver = new Archiver({
    store,
    archive,
    policy: { archiveAfterMs: 1 },
    logger,
    counts: hub.metrics.archive,
    nodeName: 'bench',
    tickMs: 250,
  });
  let writing = true;
  const background = (async () => {
    for (let n = 0; writing; n++) {
      await fillSessionInStore(writer, `bg-${n}`, 1000);
      await sleep(200);
    }
  })();
  try {
    const { url } = await hub.listen();
    await fillSessionInStore(writer, 'bg-warm', 1000);
    if (archiving) archiver.start();
    await appendAt(url, 'warm-up', 1);
    const latency = await appendAt(url, 'appended', seconds);
    return { latency, runs: hub.metrics.archive.runs };
  } finally {
    writing = false;
    await background;
    await archiver.stop();
    await hub.close();
    await Promise.all([store.close(), writer.close()]);
    await archive.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export interface ArchiveAppendResults {
  readonly seconds: number;
  readonly without: LatencySummary;
  readonly withArchiver: LatencySummary;
  readonly archiveRuns: number;
}

/** Append latency at 200/s without, then with the archiver running. */
export async function runArchiveAppend(context: BenchContext): Promise<ArchiveAppendResults> {
  const seconds = context.quick ? 3 : 15;
  const without = await oneRun(context, false, seconds);
  const withArchiver = await oneRun(context, true, seconds);
  return { seconds, without: without.latency, withArchiver: withArchiver.latency, archiveRuns: withArchiver.runs };
}
