// The archive-tier scenario's memory pieces on tiny inputs: the fit of the simulated days recovers a known hot set
// and residue from noisy reads, and the residue probe lists the keys an archived session leaves. No figure of the
// machine is judged here (benches only).
import { expect } from 'vitest';
import { measureResidue } from '../../bench/archive-residue.ts';
import { fitted } from '../../bench/archive-week.ts';
import { test } from '../helpers/fixtures.ts';

test('the fit of the days: mean daily hot set, residue per archived session, the figure of the last day', () => {
  const sessionsPerDay = 8;
  const days = 50;
  // After each day's archiving: 700 B per archived session, ± 50 KB of noise; each day adds 1.5 MB before it.
  const noise = (day: number): number => (day % 2 === 0 ? 50_000 : -50_000);
  const afterDay = Array.from({ length: days }, (_, day) => 700 * sessionsPerDay * (day + 1) + noise(day));
  const hotOfDay = afterDay.map(() => 1_500_000);
  const fit = fitted(hotOfDay, afterDay, sessionsPerDay);
  expect(fit.hotWorkingSet).toBe(1_500_000);
  expect(fit.residuePerSession).toBeGreaterThan(650);
  expect(fit.residuePerSession).toBeLessThan(750);
  expect(fit.peakUsedMemory).toBeCloseTo(1_500_000 + fit.residuePerSession * sessionsPerDay * (days - 1), 3);
});

test('the residue probe lists the three keys an archived session leaves, with their sizes', async ({ redis }) => {
  for (const writes of ['unkeyed', 'keyed'] as const) {
    const result = await measureResidue(redis.url, 2, 30, writes);
    expect(result.keys.map((key) => key.key.split(':').at(-1))).toEqual(['epoch', 'idem', 'log']);
    const log = result.keys.find((key) => key.key.endsWith(':log'))!;
    expect(log).toMatchObject({ type: 'stream', size: 0 });
    const idem = result.keys.find((key) => key.key.endsWith(':idem'))!;
    // The base field, plus one field per keyed append of 10 events.
    expect(idem.size).toBe(writes === 'keyed' ? 4 : 1);
    for (const key of result.keys) expect(key.memoryUsage).toBeGreaterThan(0);
  }
});
