/** CPU µs this process has used so far (user + system). */
export function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

export interface BestCpuOptions {
  /** Timed passes; the cheapest counts. Default 5. */
  readonly repetitions?: number;
  /** Untimed calls first, for the JIT. Default `min(iterations, 20,000)`. */
  readonly warmupCalls?: number;
}

/**
 * CPU µs per call of `step` (called with 0, 1, 2, ...): the best of `repetitions` timed passes of `iterations`
 * calls each, after `warmupCalls` untimed ones. Throws if `step` returned nothing (a dead-code-eliminated step
 * would time nothing).
 */
export function bestCpuMicrosPerCall(
  iterations: number,
  step: (index: number) => unknown,
  options: BestCpuOptions = {},
): number {
  const { repetitions = 5, warmupCalls = Math.min(iterations, 20_000) } = options;
  let sink: unknown;
  for (let index = 0; index < warmupCalls; index++) sink = step(index);
  let best = Infinity;
  for (let repetition = 0; repetition < repetitions; repetition++) {
    const started = cpuMicros();
    for (let index = 0; index < iterations; index++) sink = step(index);
    best = Math.min(best, (cpuMicros() - started) / iterations);
  }
  if (sink === undefined) throw new Error('a step returned nothing');
  return best;
}
