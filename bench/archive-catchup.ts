/**
 * The cold catch-up of bench/archive-tier.ts alone, run after run (the shared VM's load moves single runs a lot):
 * `node --conditions=source --import tsx bench/archive-catchup.ts [--runs 5] [--events 100000] [--backends file,postgres]`.
 * Each run is `catchUpOn` (3 rounds: hot twin, archived through a fresh backend, decode floor); prints every run,
 * then per backend the median run and the spread.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createTestDatabase } from '../test/helpers/postgres.ts';
import { RedisServer } from '../test/helpers/redis-server.ts';
import { catchUpOn, fileOpener, postgresOpener, type CatchUpFigures } from './archive-tier.ts';
import { median } from './scenarios/catchup-rounds.ts';
import type { BenchContext } from './targets.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string' }, events: { type: 'string' }, backends: { type: 'string' } },
});
const runs = Number(values.runs ?? 5);
const events = Number(values.events ?? 100_000);
const backends = (values.backends ?? 'file,postgres').split(',');

const k = (perSecond: number): string => `${Math.round(perSecond / 1000)}k/s`;
const server = await RedisServer.start();
const dir = await mkdtemp(join(tmpdir(), 'sh-bench-catchup-'));
try {
  const context: BenchContext = { quick: false, redisUrl: server.url };
  const results = new Map<string, CatchUpFigures[]>();
  for (let run = 0; run < runs; run++) {
    for (const backend of backends) {
      // A fresh directory or database each run: the session is archived anew.
      const database = backend === 'postgres' ? await createTestDatabase('sh_bench_catchup') : undefined;
      const open = database === undefined ? fileOpener(join(dir, `run-${run}`)) : postgresOpener(database.url);
      let figures: CatchUpFigures;
      try {
        figures = await catchUpOn(context, open, events);
      } finally {
        await database?.drop();
      }
      results.set(backend, [...(results.get(backend) ?? []), figures]);
      console.log(
        `run ${run + 1} ${backend}: archived ${k(figures.cold)}, hot ${k(figures.hot)}, ratio ${figures.pairedRatio.toFixed(2)}x; decode alone ${k(figures.decode)} (${(figures.decode / figures.hot).toFixed(2)}x hot), sync decompression alone ${k(figures.decompressSync)}`,
      );
    }
  }
  for (const [backend, all] of results) {
    const ratios = all.map((figures) => figures.pairedRatio).sort((a, b) => a - b);
    const pick = (field: keyof CatchUpFigures): string => k(median(all.map((figures) => figures[field])));
    console.log(
      `${backend}, median of ${all.length} runs: ratio ${median(ratios).toFixed(2)}x (spread ${ratios[0]!.toFixed(2)}-${ratios.at(-1)!.toFixed(2)}x); archived ${pick('cold')}, hot ${pick('hot')}, decode alone ${pick('decode')}, sync decompression ${pick('decompressSync')}`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  await server.stop();
}
