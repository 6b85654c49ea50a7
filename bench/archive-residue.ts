/**
 * What stays in Redis of an archived session (issue 29): every key of the session with its type, size, encoding
 * and `MEMORY USAGE` (`used_memory`'s growth per archived session is bench/archive-week.ts's `residuePerSession`). Part of `--only archive-tier` and on its own:
 * `node --conditions=source --import tsx bench/archive-residue.ts [--sessions 200] [--events 1000] [--keyed]`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { RedisStore } from '../server/index.ts';
import { archiveSession } from '../server/archive/archive-run.ts';
import { FileArchive } from '../server/archive/file/file-archive.ts';
import { RedisServer } from '../test/helpers/redis-server.ts';
import { fillSessionInStore } from './baselines/xrange.ts';
import { BENCH_IDEMPOTENCY_WINDOW_MS, fillKeyedSession, type WeekResults } from './archive-week.ts';

export interface ResidueKey {
  readonly key: string;
  readonly type: string;
  /** Entries (stream), fields (hash) or bytes (string). */
  readonly size: number;
  readonly encoding: string;
  readonly memoryUsage: number;
}

export interface ResidueResults {
  readonly writes: WeekResults['writes'];
  readonly sessions: number;
  readonly eventsPerSession: number;
  /** The keys of one archived session. */
  readonly keys: readonly ResidueKey[];
}

async function describeKey(redis: Redis, key: string): Promise<ResidueKey> {
  const type = await redis.type(key);
  const size =
    type === 'stream'
      ? await redis.xlen(key)
      : type === 'hash'
        ? await redis.hlen(key)
        : type === 'string'
          ? await redis.strlen(key)
          : 0;
  const encoding = String(await redis.object('ENCODING', key));
  const memoryUsage = Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
  return { key, type, size, encoding, memoryUsage };
}

/** Writes and archives `sessions` sessions of `events` on `redisUrl`; what stays of them. */
export async function measureResidue(
  redisUrl: string,
  sessions: number,
  events: number,
  writes: WeekResults['writes'],
): Promise<ResidueResults> {
  const keyPrefix = `bench-res-${randomUUID().slice(0, 8)}:`;
  const store = await RedisStore.open({ url: redisUrl, keyPrefix });
  const redis = new Redis(redisUrl);
  const dir = await mkdtemp(join(tmpdir(), 'sh-bench-residue-'));
  const archive = new FileArchive({ dir });
  await archive.open();
  try {
    const one = async (sessionId: string): Promise<void> => {
      await (writes === 'unkeyed' ? fillSessionInStore : fillKeyedSession)(store, sessionId, events);
      const window = writes === 'keyed-window' ? { idempotencyWindowMs: BENCH_IDEMPOTENCY_WINDOW_MS } : {};
      const run = await archiveSession({ store, archive, sessionId, token: 'bench', ...window });
      if (run.status !== 'archived' || run.cut !== events) throw new Error(`residue: run ${JSON.stringify(run)}`);
    };
    await one('probe'); // the first: shared structures warmed
    for (let index = 0; index < sessions; index++) await one(`s-${index}`);
    const names = await redis.keys(`${keyPrefix}{s-0}:*`);
    const keys = await Promise.all(names.sort().map((key) => describeKey(redis, key)));
    return { writes, sessions, eventsPerSession: events, keys };
  } finally {
    await archive.close();
    await rm(dir, { recursive: true, force: true });
    redis.disconnect();
    await store.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { sessions: { type: 'string' }, events: { type: 'string' }, keyed: { type: 'boolean' } },
  });
  const server = await RedisServer.start();
  try {
    const sessions = Number(values.sessions ?? 200);
    const writes = values.keyed === true ? 'keyed' : 'unkeyed';
    const result = await measureResidue(server.url, sessions, Number(values.events ?? 1000), writes);
    for (const key of result.keys) {
      console.log(`${key.key}  ${key.type}/${key.encoding}  size ${key.size}  MEMORY USAGE ${key.memoryUsage} B`);
    }
    const total = result.keys.reduce((sum, key) => sum + key.memoryUsage, 0);
    console.log(
      `sum of MEMORY USAGE ${total} B (${result.writes} writes, ${result.eventsPerSession} events a session)`,
    );
  } finally {
    await server.stop();
  }
}
