/**
 * Projection benchmark: events/s of `MessageProjector` over logs of 1k, 100k and 1M events, the per-event cost
 * ratio between the largest and the smallest log, the cost of a replacement (tool-result prune, system prompt
 * change) as the log grows, and the from-scratch `deriveMessages` time as a baseline.
 *
 * Run on its own: `node --import tsx bench/projection.ts [--quick]`.
 */
import { pathToFileURL } from 'node:url';
import type { SessionEvent } from '../shared/index.ts';
import { MessageProjector, deriveMessages } from '../shared/index.ts';

export interface ProjectionSizeResult {
  /** Events in each log. */
  readonly events: number;
  /** Distinct logs of this size projected per measurement (they add up to the largest size). */
  readonly logs: number;
  /** `MessageProjector.apply` throughput (CPU time, best of the repetitions), change records included. */
  readonly eventsPerSecond: number;
  readonly nsPerEvent: number;
  /** CPU ns per event of the bulk path `applyAll` (no change records). */
  readonly bulkNsPerEvent: number;
  /** CPU ns per event of `apply` when one log of this size is projected over and over (it stays in CPU caches). */
  readonly hotNsPerEvent: number;
  /** CPU ns of a 1-for-1 tool-result prune on a log of this size (mean of 5,000 chained ones, best repetition). */
  readonly pruneReplacementNs: number;
  /** CPU ns of replacing the leading system prompt on a log of this size (mean of 5,000 chained ones, best repetition). */
  readonly systemPromptReplacementNs: number;
  /** CPU ms of the from-scratch `deriveMessages` over one log of this size (baseline; warmed up, best of 5 repetitions
   * over the same number of events as the projector). */
  readonly fromScratchMs: number;
  /** Messages derived from the log. */
  readonly messages: number;
}

export interface ProjectionBenchResult {
  readonly name: 'projection';
  readonly quick: boolean;
  readonly sizes: readonly ProjectionSizeResult[];
  /** ns/event of the largest log divided by ns/event of the smallest. */
  readonly perEventRatio: number;
  /** Replacement cost of the largest log divided by that of the smallest (worst of prune and system prompt). */
  readonly replacementRatio: number;
  readonly targets: { readonly eventsPerSecond: number; readonly perEventRatio: number };
  /** True when every size reaches the events/s target and the per-event ratio is within its target. */
  readonly meetsTargets: boolean;
}

const TARGET_EVENTS_PER_SECOND = 1_000_000;
const TARGET_PER_EVENT_RATIO = 1.5;
const REPLACEMENTS = 5_000;

/**
 * A realistic agent log (valid by construction): a system prompt, then turns of a user message and steps of
 * streamed chunks, an assistant message, a tool call and its result. About a third of the events are surface events.
 */
export function buildBenchLog(size: number): SessionEvent[] {
  const events: SessionEvent[] = [];
  const push = (event: Omit<SessionEvent, 'seq' | 'time'>): number => {
    const seq = events.length;
    events.push({ seq, time: 1_764_460_800_000 + seq, ...event } as SessionEvent);
    return seq;
  };
  push({ type: 'system/message', data: { content: 'You are a careful agent.' }, surfaceOp: 'append' });
  let turn = 0;
  while (events.length < size) {
    turn++;
    push({ type: 'turn/start', data: { turn } });
    push({ type: 'user/message', data: { role: 'user', content: `task ${turn}` }, surfaceOp: 'append' });
    for (let step = 1; step <= 3 && events.length < size; step++) {
      push({ type: 'step/start', data: { turn, step } });
      const chunks = [0, 1, 2].map((index) =>
        push({ type: 'assistant/chunk', data: { turn, step, chunk: { type: 'text-delta', text: `t${index}` } } }),
      );
      const callId = `call_${turn}_${step}`;
      const content = [{ type: 'tool_use', id: callId, name: 'bash', input: { command: 'ls' } }];
      const message = { role: 'assistant', content };
      push({ type: 'assistant/message', data: { turn, step, message }, surfaceOp: 'append', sourceEventSeqs: chunks });
      const callSeq = push({ type: 'tool/call', data: { turn, step, callId, name: 'bash', arguments: '{}' } });
      const result = {
        role: 'tool',
        toolCallId: callId,
        toolName: 'bash',
        content: 'output '.repeat(8),
        isError: false,
      };
      push({
        type: 'tool/result',
        data: { turn, step, message: result },
        surfaceOp: 'append',
        sourceEventSeqs: [callSeq],
      });
      push({ type: 'step/end', data: { turn, step } });
    }
    push({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
  }
  return events.slice(0, size);
}

/** CPU milliseconds of this process (user + system): robust when other processes compete for the cores. */
function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** CPU ns per event of projecting every log once with a fresh projector. */
function timeProjection(logs: readonly (readonly SessionEvent[])[], mode: 'apply' | 'applyAll'): number {
  let events = 0;
  for (const log of logs) events += log.length;
  const started = cpuMs();
  for (const log of logs) {
    const projector = new MessageProjector();
    if (mode === 'applyAll') projector.applyAll(log);
    else for (const event of log) projector.apply(event);
  }
  return ((cpuMs() - started) * 1e6) / events;
}

/** CPU ns per event of deriving the messages of every log from scratch (the baseline of the projector). */
function timeFromScratch(logs: readonly (readonly SessionEvent[])[]): number {
  let events = 0;
  for (const log of logs) events += log.length;
  const started = cpuMs();
  for (const log of logs) deriveMessages(log);
  return ((cpuMs() - started) * 1e6) / events;
}

/** CPU ns per replacement of `REPLACEMENTS` chained replacements of one node (each replaces the previous one). */
function timeReplacements(events: readonly SessionEvent[], kind: 'prune' | 'system'): number {
  const projector = new MessageProjector();
  projector.applyAll(events);
  const middle = events.findLast((event) => event.type === 'tool/result' && event.seq <= events.length / 2);
  const target = kind === 'prune' ? middle : events[0];
  if (target === undefined) throw new Error('bench log has no replacement target');
  const replacements: SessionEvent[] = [];
  let targetSeq = target.seq;
  for (let index = 0; index < REPLACEMENTS; index++) {
    const seq = events.length + index;
    const data =
      kind === 'prune'
        ? {
            ...(target.data as object),
            message: { ...(target.data as { message: object }).message, content: `[pruned ${index}]` },
          }
        : { content: `system prompt v${index}` };
    replacements.push({
      seq,
      time: 0,
      type: target.type,
      data,
      surfaceOp: { op: 'replace', startSeq: targetSeq, endSeq: targetSeq },
      sourceEventSeqs: [targetSeq],
    } as SessionEvent);
    targetSeq = seq;
  }
  const started = cpuMs();
  for (const event of replacements) projector.apply(event);
  return ((cpuMs() - started) * 1e6) / REPLACEMENTS;
}

interface SizeSamples {
  readonly size: number;
  readonly logs: readonly (readonly SessionEvent[])[];
  apply: number;
  applyAll: number;
  hot: number;
  prune: number;
  system: number;
  fromScratch: number;
}

const REPETITIONS = 5;

/**
 * Runs the projection benchmark (quick: 1k and 100k events; full: 1k, 100k and 1M). Every size projects the same
 * number of events (many short logs or one long one), so all sizes read the same amount of memory and only the
 * log length differs; repetitions interleave the sizes and the best (least disturbed) CPU time is kept.
 */
export async function runProjectionBench(options: { quick: boolean }): Promise<ProjectionBenchResult> {
  const sizes = options.quick ? [1_000, 100_000] : [1_000, 100_000, 1_000_000];
  const workingSet = sizes.at(-1)!;
  const samples: SizeSamples[] = sizes.map((size) => ({
    size,
    logs: Array.from({ length: Math.max(1, Math.round(workingSet / size)) }, () => buildBenchLog(size)),
    apply: Infinity,
    applyAll: Infinity,
    hot: Infinity,
    prune: Infinity,
    system: Infinity,
    fromScratch: Infinity,
  }));
  // Warm up the JIT (projection and replacements) before anything is measured.
  const warmUp = buildBenchLog(10_000);
  for (let round = 0; round < 20; round++) {
    timeProjection([warmUp], 'apply');
    timeProjection([warmUp], 'applyAll');
  }
  timeReplacements(warmUp, 'prune');
  timeReplacements(warmUp, 'system');
  for (let repetition = 0; repetition < REPETITIONS; repetition++) {
    for (const sample of samples) {
      const first = sample.logs[0]!;
      sample.apply = Math.min(sample.apply, timeProjection(sample.logs, 'apply'));
      sample.applyAll = Math.min(sample.applyAll, timeProjection(sample.logs, 'applyAll'));
      const hotLogs = Array.from({ length: Math.ceil(100_000 / sample.size) }, () => first);
      sample.hot = Math.min(sample.hot, timeProjection(hotLogs, 'apply'));
      sample.prune = Math.min(sample.prune, timeReplacements(first, 'prune'));
      sample.system = Math.min(sample.system, timeReplacements(first, 'system'));
      await new Promise((resolve) => setTimeout(resolve, 0)); // let the event loop breathe
    }
  }
  // The baseline in a phase of its own: its garbage (every message of a 1M-event log) must not land in the
  // projector's measurements. Warmed up like the projector, best repetition kept.
  for (let round = 0; round < 20; round++) timeFromScratch([warmUp]);
  for (let repetition = 0; repetition < REPETITIONS; repetition++) {
    for (const sample of samples) sample.fromScratch = Math.min(sample.fromScratch, timeFromScratch(sample.logs));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  const results = samples.map((sample): ProjectionSizeResult => {
    const messages = deriveMessages(sample.logs[0]!).length;
    const fromScratchMs = (sample.fromScratch * sample.size) / 1e6;
    return {
      events: sample.size,
      logs: sample.logs.length,
      eventsPerSecond: Math.round(1e9 / sample.apply),
      nsPerEvent: sample.apply,
      bulkNsPerEvent: sample.applyAll,
      hotNsPerEvent: sample.hot,
      pruneReplacementNs: sample.prune,
      systemPromptReplacementNs: sample.system,
      fromScratchMs,
      messages,
    };
  });
  const first = results[0]!;
  const last = results.at(-1)!;
  const perEventRatio = last.nsPerEvent / first.nsPerEvent;
  const replacementRatio = Math.max(
    last.pruneReplacementNs / first.pruneReplacementNs,
    last.systemPromptReplacementNs / first.systemPromptReplacementNs,
  );
  return {
    name: 'projection',
    quick: options.quick,
    sizes: results,
    perEventRatio,
    replacementRatio,
    targets: { eventsPerSecond: TARGET_EVENTS_PER_SECOND, perEventRatio: TARGET_PER_EVENT_RATIO },
    meetsTargets:
      results.every((result) => result.eventsPerSecond >= TARGET_EVENTS_PER_SECOND) &&
      perEventRatio <= TARGET_PER_EVENT_RATIO,
  };
}

/** A plain-text table of a result. */
export function formatProjectionBench(result: ProjectionBenchResult): string {
  const rows = [
    [
      'events',
      'logs',
      'events/s',
      'ns/event',
      'bulk ns',
      'hot ns',
      'prune ns',
      'system ns',
      'from-scratch ms',
      'messages',
    ],
    ...result.sizes.map((size) => [
      size.events.toLocaleString('en-US'),
      String(size.logs),
      size.eventsPerSecond.toLocaleString('en-US'),
      size.nsPerEvent.toFixed(1),
      size.bulkNsPerEvent.toFixed(1),
      size.hotNsPerEvent.toFixed(1),
      size.pruneReplacementNs.toFixed(0),
      size.systemPromptReplacementNs.toFixed(0),
      size.fromScratchMs.toFixed(1),
      size.messages.toLocaleString('en-US'),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) => row.map((cell, column) => cell.padStart(widths[column]!)).join('  '));
  lines.push(
    '',
    `per-event cost ratio (largest/smallest): ${result.perEventRatio.toFixed(2)} (target ≤ ${result.targets.perEventRatio})`,
    `replacement cost ratio (largest/smallest): ${result.replacementRatio.toFixed(2)}`,
    `targets met: ${result.meetsTargets ? 'yes' : 'NO'}`,
  );
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runProjectionBench({ quick: process.argv.includes('--quick') });
  console.log(formatProjectionBench(result));
}
