/**
 * `node --import tsx bench/append-steps.ts [--iterations N]`: the CPU cost of each pure step the hub runs for one
 * socket append of the bench event (decode, parse, size check, validation, stored body, ack), measured in-process
 * with no I/O. Their sum against the hub's CPU per append in `npm run bench` shows how much of an append is the
 * hub's own logic and how much is socket, Redis client, promise and GC work around it (docs/performance.md).
 * Then the SDK's side of the same append, the way it encodes now next to the way it did before.
 */
import { pathToFileURL } from 'node:url';
import { Session } from '../shared/index.ts';
import { decodeFrame, encodeFrame } from '../shared/codec.ts';
import { parseClientMessage } from '../shared/protocol-parse.ts';
import { type AppendRequest, type ClientMessage } from '../shared/protocol.ts';
import { assertDraftSizes } from '../server/limits/event-size.ts';
import { defaultLimits } from '../server/limits/limits.ts';
import { encodeEventBody } from '../server/store/codec/event-codec.ts';
import { appendFrameBytes, encodeAppendFrame, encodeDraftArray, encodedDraft } from '../client/append-frame.ts';
import { encodeMsgpackValue } from '../shared/codec.ts';
import { normalizeDraft } from '../shared/index.ts';
import { bestCpuMicrosPerCall } from './best-cpu.ts';
import { benchDraft } from './workload.ts';

export interface AppendStepCost {
  readonly step: string;
  /** CPU µs per append (best of the repetitions). */
  readonly micros: number;
}

const DISTINCT_FRAMES = 1000;
/** Best CPU µs per call of `step` over `iterations` calls, the frames cycled. */
function timeStep(iterations: number, step: (index: number) => unknown): number {
  return bestCpuMicrosPerCall(iterations, (index) => step(index % DISTINCT_FRAMES));
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

const SDK_FIELDS = {
  type: 'append',
  sessionId: 'bench/steps',
  expectedSeq: 41,
  idempotencyKey: 'k'.repeat(36),
} as const;

/**
 * The SDK's CPU per one-event `AgentWriter` append, from the draft to the frame handed to the socket, both ways
 * in the same run: `encode-once` is what the SDK does (the draft normalized and encoded once; the frame built
 * around its bytes), `encode-per-use` what it did before (normalized again by the client, encoded for the writer's
 * frame budget, for the client's size check and for the send).
 */
export function measureSdkAppendSteps(options: { readonly iterations: number }): AppendStepCost[] {
  const drafts = Array.from({ length: DISTINCT_FRAMES }, (_, index) => benchDraft(index, 1234.5));
  const encodeOnce = (index: number): unknown => {
    const draft = normalizeDraft({ ...drafts[index]! }); // the writer's copy
    const budget = encodedDraft(draft).byteLength;
    const events = encodeDraftArray([normalizeDraft(draft)]); // the client's (now the same draft)
    const checked = appendFrameBytes({ ...SDK_FIELDS, id: Number.MAX_SAFE_INTEGER }, events);
    return budget + checked > 0 ? encodeAppendFrame({ ...SDK_FIELDS, id: index + 1 }, events) : undefined;
  };
  const encodePerUse = (index: number): unknown => {
    const writerCopy = normalizeDraft({ ...drafts[index]! });
    const budget = encodeMsgpackValue(writerCopy).byteLength;
    const events = [normalizeDraft({ ...writerCopy })]; // a new draft object around the same frozen data
    const checked = encodeFrame({ ...SDK_FIELDS, id: Number.MAX_SAFE_INTEGER, events }).byteLength;
    return budget + checked > 0 ? encodeFrame({ ...SDK_FIELDS, id: index + 1, events }) : undefined;
  };
  return [
    { step: 'SDK: draft to frame, encode-once', micros: timeStep(options.iterations, encodeOnce) },
    { step: 'SDK: draft to frame, encode-per-use (before)', micros: timeStep(options.iterations, encodePerUse) },
  ];
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
  process.stdout.write(`CPU per append of one bench event, by step (best of 5):\n`);
  process.stdout.write(`${formatAppendSteps(measureAppendSteps({ iterations }))}\n`);
  process.stdout.write(`\nThe SDK's CPU per one-event append, draft to frame (best of 5):\n`);
  process.stdout.write(`${formatAppendSteps(measureSdkAppendSteps({ iterations }))}\n`);
}
