/**
 * `node --import tsx bench/append-steps.ts [--iterations N]`: the CPU cost of each pure step the hub runs for one
 * socket append of the bench event (decode, parse, size check, validation, stored body, ack), measured in-process
 * with no I/O. Their sum against the hub's CPU per append in `npm run bench` shows how much of an append is the
 * hub's own logic and how much is socket, Redis client, promise and GC work around it (docs/performance.md).
 */
import { pathToFileURL } from 'node:url';
import { Session } from '../shared/index.ts';
import { decodeFrame, encodeFrame } from '../shared/codec.ts';
import { parseClientMessage } from '../shared/protocol-parse.ts';
import { type AppendRequest, type ClientMessage } from '../shared/protocol.ts';
import { assertDraftSizes } from '../server/limits/event-size.ts';
import { defaultLimits } from '../server/config.ts';
import { encodeEventBody } from '../server/store/codec/event-codec.ts';
import { benchDraft } from './workload.ts';

export interface AppendStepCost {
  readonly step: string;
  /** CPU µs per append (best of the repetitions). */
  readonly micros: number;
}

const DISTINCT_FRAMES = 1000;
const REPETITIONS = 5;

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** Best-of-`REPETITIONS` CPU µs per call of `step` over `iterations` calls (after one warm-up pass). */
function timeStep(iterations: number, step: (index: number) => unknown): number {
  let sink: unknown;
  for (let index = 0; index < Math.min(iterations, 20_000); index++) sink = step(index % DISTINCT_FRAMES);
  let best = Infinity;
  for (let repetition = 0; repetition < REPETITIONS; repetition++) {
    const started = cpuMicros();
    for (let index = 0; index < iterations; index++) sink = step(index % DISTINCT_FRAMES);
    best = Math.min(best, (cpuMicros() - started) / iterations);
  }
  if (sink === undefined) throw new Error('a step returned nothing');
  return best;
}

function asAppend(message: ClientMessage): AppendRequest {
  if (message.type !== 'append') throw new Error(`expected an append, got ${message.type}`);
  return message;
}

/** Measure each step over `iterations` appends of one bench event (1,000 distinct frames, cycled). */
export function measureAppendSteps(options: { readonly iterations: number }): AppendStepCost[] {
  const { iterations } = options;
  const frames = Array.from({ length: DISTINCT_FRAMES }, (_, index) =>
    encodeFrame({ type: 'append', id: index + 1, sessionId: 'bench/steps', events: [benchDraft(index, 1234.5)] }),
  );
  const decoded = frames.map((frame) => decodeFrame(frame));
  const appends = decoded.map((value) => asAppend(parseClientMessage(value)));
  const session = new Session();
  const validated = appends.map((append) => session.check(append.events)[0]!);
  const ack = (index: number): Uint8Array =>
    encodeFrame({
      type: 'ack',
      id: index + 1,
      sessionId: 'bench/steps',
      epoch: 'mk2x9q4v-1a2b3c4d',
      firstSeq: index,
      lastSeq: index,
      time: 1_796_000_000_000 + index,
      duplicate: false,
    });
  const steps: [string, (index: number) => unknown][] = [
    ['decode frame (msgpack)', (index) => decodeFrame(frames[index]!)],
    ['parse (narrow to AppendRequest)', (index) => parseClientMessage(decoded[index])],
    ['size and depth check', (index) => assertDraftSizes(appends[index]!.events, defaultLimits)],
    ['validate + freeze at the head', (index) => session.check(appends[index]!.events)],
    ['encode stored body', (index) => encodeEventBody(validated[index]!)],
    ['encode ack', ack],
  ];
  const costs = steps.map(([step, run]) => ({ step, micros: timeStep(iterations, run) }));
  return [...costs, { step: 'total', micros: costs.reduce((sum, cost) => sum + cost.micros, 0) }];
}

/** The costs as a two-column text table. */
export function formatAppendSteps(costs: readonly AppendStepCost[]): string {
  const width = Math.max(...costs.map((cost) => cost.step.length));
  return costs.map((cost) => `${cost.step.padEnd(width)}  ${cost.micros.toFixed(2).padStart(7)} µs`).join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const flag = process.argv.indexOf('--iterations');
  const iterations = flag >= 0 ? Number(process.argv[flag + 1]) : 200_000;
  if (!Number.isSafeInteger(iterations) || iterations <= 0) {
    process.stderr.write('usage: node --import tsx bench/append-steps.ts [--iterations N]\n');
    process.exit(2);
  }
  process.stdout.write(`CPU per append of one bench event, by step (best of ${REPETITIONS}):\n`);
  process.stdout.write(`${formatAppendSteps(measureAppendSteps({ iterations }))}\n`);
}
