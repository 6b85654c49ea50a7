import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { createHub, RedisStore } from '../../server/index.ts';
import { atMost, type Row } from '../report.ts';
import type { BenchContext } from '../targets.ts';

/** Sessions written; one in `MATCH_EVERY` carries the subject's label. */
const SESSIONS = { quick: 1000, full: 10_000 };
const MATCH_EVERY = 10;
const ROUNDS = 5;
const EVENTS_PER_SESSION = 20;

export interface ErasureResult {
  readonly sessions: number;
  readonly matching: number;
  /** Median time of a subject dry run (`POST /v1/erasures`, `dryRun: true`) over HTTP. */
  readonly dryRunMs: number;
  /** Median time of the listing filtered by the same label (`GET /v1/sessions?label=`), the same walk. */
  readonly listingMs: number;
  /** The real run: hub time per erased session (pages of 100 over HTTP, each with its audit line). */
  readonly erasePerSessionUs: number;
  /** Of which the walk: a dry-run page of 100 (the first), per session. */
  readonly walkPerSessionUs: number;
  /** Baseline: a pipelined `DEL` of the same keys of as many other sessions, per session. */
  readonly delPerSessionUs: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const post = (url: string, body: object): Promise<Response> =>
  fetch(`${url}/v1/erasures`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/**
 * Scenario: subject erasure (`POST /v1/erasures`) over N sessions of 20 events with labels, one in ten the subject's,
 * against an in-process hub on the bench Redis. The dry run is compared with the listing filtered by the same label
 * (both walk every session's metadata); the real run with a pipelined DEL of the same five keys per session (the
 * least an erasure writes), measured on a second set of matching sessions.
 */
export async function runErasure(
  context: BenchContext,
  log: (line: string) => void,
): Promise<{ rows: Row[]; raw: ErasureResult }> {
  const keyPrefix = `be${Date.now() % 100_000}:`;
  const store = await RedisStore.open({ url: context.redisUrl, keyPrefix });
  const hub = createHub({ store, port: 0, logLevel: 'silent' });
  const redis = new Redis(context.redisUrl);
  try {
    const { url } = await hub.listen();
    const count = context.quick ? SESSIONS.quick : SESSIONS.full;
    const write = async (sessionId: string, userId: string): Promise<void> => {
      const events = Array.from({ length: EVENTS_PER_SESSION }, (_, n) => ({ type: 'bench/note', data: { n } }));
      await store.commit({ sessionId, expectedSeq: 0, events, idempotencyKey: 'k' });
      await store.metadata.patch(sessionId, { title: sessionId, labels: { userId } });
    };
    for (let start = 0; start < count; start += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, count - start) }, (_, offset) => {
          const index = start + offset;
          return write(`tenant/s-${index}`, index % MATCH_EVERY === 0 ? 'u-42' : `other-${index}`);
        }),
      );
    }
    const matching = Math.ceil(count / MATCH_EVERY);
    const dryRuns: number[] = [];
    const listings: number[] = [];
    const walks: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let begin = performance.now();
      const dry = (await (await post(url, { match: { label: 'userId=u-42' }, dryRun: true })).json()) as {
        sessions: string[];
      };
      dryRuns.push(performance.now() - begin);
      if (dry.sessions.length !== matching) throw new Error(`erasure: the dry run listed ${dry.sessions.length}`);
      begin = performance.now();
      const listed = (await (await fetch(`${url}/v1/sessions?label=userId=u-42&limit=1000`)).json()) as {
        sessions: unknown[];
      };
      listings.push(performance.now() - begin);
      begin = performance.now();
      await (await post(url, { match: { label: 'userId=u-42' }, dryRun: true, limit: 100 })).json();
      walks.push(performance.now() - begin);
      if (listed.sessions.length !== Math.min(matching, 1000)) throw new Error('erasure: the listing differs');
    }
    // The baseline first, on sessions of its own: the same keys, deleted in one pipeline.
    const doomed = Array.from({ length: matching }, (_, index) => `tenant/del-${index}`);
    for (let start = 0; start < doomed.length; start += 100) {
      await Promise.all(doomed.slice(start, start + 100).map((sessionId) => write(sessionId, 'baseline')));
    }
    let begin = performance.now();
    const pipeline = redis.pipeline();
    for (const sessionId of doomed) {
      const base = `${keyPrefix}{${sessionId}}:`;
      pipeline.del(`${base}log`, `${base}epoch`, `${base}idem`, `${base}snap`, `${base}meta`);
    }
    await pipeline.exec();
    const delMs = performance.now() - begin;
    begin = performance.now();
    let erased = 0;
    let after: string | undefined;
    do {
      const body = { match: { label: 'userId=u-42' }, dryRun: false, reason: 'bench', ...(after ? { after } : {}) };
      const page = (await (await post(url, body)).json()) as { sessions: string[]; next?: string };
      erased += page.sessions.length;
      after = page.next;
    } while (after !== undefined);
    const eraseMs = performance.now() - begin;
    if (erased !== matching) throw new Error(`erasure: erased ${erased} of ${matching}`);
    const result: ErasureResult = {
      sessions: count,
      matching,
      dryRunMs: median(dryRuns),
      listingMs: median(listings),
      erasePerSessionUs: (eraseMs * 1000) / matching,
      walkPerSessionUs: (median(walks) * 1000) / 100,
      delPerSessionUs: (delMs * 1000) / matching,
    };
    log(
      `erasure over ${count} sessions: dry run ${result.dryRunMs.toFixed(1)} ms (listing ${result.listingMs.toFixed(1)} ms), ` +
        `${result.erasePerSessionUs.toFixed(0)} µs per erased session, of which the walk ${result.walkPerSessionUs.toFixed(0)} µs ` +
        `(DEL ${result.delPerSessionUs.toFixed(0)} µs)`,
    );
    return { rows: erasureRows(result), raw: result };
  } finally {
    redis.disconnect();
    await hub.close();
    await store.close();
  }
}

/** Table rows of the erasure scenario (pure). */
export function erasureRows(result: ErasureResult): Row[] {
  const sessions = result.sessions.toLocaleString('en-US');
  return [
    {
      scenario: `subject erasure, ${sessions} sessions`,
      metric: `dry run, ${result.matching} matching (median)`,
      unit: 'ms',
      hub: result.dryRunMs,
      baselineName: 'GET /v1/sessions?label= (same walk)',
      baseline: result.listingMs,
      target: '≤ 1.5× baseline',
      met: atMost(result.dryRunMs, 1.5 * result.listingMs),
    },
    {
      scenario: `subject erasure, ${sessions} sessions`,
      metric: 'real run, per erased session',
      unit: 'µs',
      hub: result.erasePerSessionUs,
      baselineName: 'pipelined DEL of the same keys',
      baseline: result.delPerSessionUs,
      target: '',
      met: null,
    },
  ];
}
