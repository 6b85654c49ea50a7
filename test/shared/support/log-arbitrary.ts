import fc from 'fast-check';
import type { EventDraft, SessionEvent } from '../../../shared/index.ts';
import { Session } from '../../../shared/index.ts';

/** Abstract steps of an agent run; `buildLog` turns them into valid drafts against the current surface. */
export type LogCommand =
  | { readonly kind: 'user'; readonly content: unknown }
  | { readonly kind: 'assistant'; readonly content: unknown; readonly chunks: number }
  | { readonly kind: 'system'; readonly content: string }
  | { readonly kind: 'tool'; readonly output: string }
  | { readonly kind: 'boundary' }
  | { readonly kind: 'extension'; readonly data: unknown }
  | { readonly kind: 'replace'; readonly at: number; readonly span: number; readonly as: number; readonly text: string }
  | { readonly kind: 'systemChange'; readonly content: string }
  | { readonly kind: 'prune'; readonly at: number; readonly output: string };

const text = fc.string({ maxLength: 6 });

/** Lossless JSON values: safe integers, finite doubles other than -0, well-formed strings. */
export const losslessJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .filter((value) => !Object.is(value, -0) && Number.isSafeInteger(Math.trunc(value))),
    fc.string({ unit: 'grapheme', maxLength: 8 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;
const messageContent = fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 }));
const fraction = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

export const logCommand: fc.Arbitrary<LogCommand> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('user' as const), content: messageContent }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('assistant' as const),
      content: fc.oneof(messageContent, fc.constantFrom([], '', null)),
      chunks: fc.nat(2),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('system' as const), content: fc.oneof(text, fc.constant('')) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('tool' as const), output: text }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('boundary' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('extension' as const), data: losslessJson }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fraction, span: fc.nat(3), as: fc.nat(3), text }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('systemChange' as const), content: fc.oneof(text, fc.constant('')) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('prune' as const), at: fraction, output: text }) },
);

export const logCommands = fc.array(logCommand, { minLength: 1, maxLength: 50, size: 'medium' });

interface SurfaceNode {
  readonly seq: number;
  readonly type: string;
  readonly data: unknown;
}

/** Folds the surface of committed events (the oracle the builder chooses valid ranges from). */
function surfaceOf(events: readonly SessionEvent[]): SurfaceNode[] {
  let surface: SurfaceNode[] = [];
  for (const event of events) {
    const op = event.surfaceOp;
    if (op === undefined) continue;
    const node = { seq: event.seq, type: event.type, data: event.data };
    if (op === 'append') surface.push(node);
    else {
      const start = surface.findIndex((item) => item.seq === op.startSeq);
      const end = surface.findIndex((item) => item.seq === op.endSeq);
      surface = [...surface.slice(0, start), node, ...surface.slice(end + 1)];
    }
  }
  return surface;
}

const replaceTypes = ['user/message', 'assistant/message', 'system/message', 'tool/result'] as const;

/** Where a log's lifecycle stands: the last turn and step, whether that turn is open, how many calls it made. */
interface LifecycleState {
  turn: number;
  step: number;
  open: boolean;
  call: number;
}

/** The lifecycle state after `events` (so that `buildLog` continues a log, e.g. a fork's, with valid events). */
function lifecycleStateOf(events: readonly SessionEvent[]): LifecycleState {
  const state: LifecycleState = { turn: 0, step: 0, open: false, call: 0 };
  for (const event of events) {
    const data = event.data as { turn?: number; step?: number };
    if (event.type === 'turn/start') Object.assign(state, { turn: data.turn ?? state.turn, step: 0, open: true });
    else if (event.type === 'step/start') state.step = data.step ?? state.step;
    else if (event.type === 'step/end') state.step = 0;
    else if (event.type === 'turn/end') Object.assign(state, { step: 0, open: false });
    else if (event.type === 'tool/call') state.call++;
  }
  return state;
}

/**
 * Turns commands into valid drafts, appending each to `session` as it goes (continuing the lifecycle of the events
 * it holds: turn numbers, open step, call ids); returns every draft appended.
 */
export function buildLog(commands: readonly LogCommand[], session = new Session({ clock: () => 1 })): EventDraft[] {
  const appended: EventDraft[] = [];
  const append = (draft: EventDraft): void => {
    session.append(draft);
    appended.push(draft);
  };
  let { turn, step, open, call } = lifecycleStateOf(session.events);
  const ensureStep = (): void => {
    if (!open) {
      append({ type: 'turn/start', data: { turn: ++turn } });
      open = true;
    }
    if (step === 0) append({ type: 'step/start', data: { turn, step: (step = 1) } });
  };
  for (const command of commands) {
    const surface = surfaceOf(session.events);
    switch (command.kind) {
      case 'user':
        append({ type: 'user/message', data: { role: 'user', content: command.content } });
        break;
      case 'assistant': {
        ensureStep();
        const chunkSeqs: number[] = [];
        for (let index = 0; index < command.chunks; index++) {
          chunkSeqs.push(session.length);
          append({ type: 'assistant/chunk', data: { turn, step, chunk: { text: index } } });
        }
        const message = { role: 'assistant', ...(command.content === null ? {} : { content: command.content }) };
        append({ type: 'assistant/message', data: { turn, step, message }, sourceEventSeqs: chunkSeqs });
        break;
      }
      case 'system':
        append({ type: 'system/message', data: { content: command.content } });
        break;
      case 'tool': {
        ensureStep();
        const callId = `call_${++call}`;
        const callSeq = session.length;
        append({ type: 'tool/call', data: { turn, step, callId, name: 'bash', arguments: '{}' } });
        const message = { role: 'tool', toolCallId: callId, toolName: 'bash', content: command.output, isError: false };
        append({ type: 'tool/result', data: { turn, step, message }, sourceEventSeqs: [callSeq] });
        break;
      }
      case 'boundary':
        if (step > 0) append({ type: 'step/end', data: { turn, step } });
        if (open) append({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
        append({ type: 'turn/start', data: { turn: ++turn } });
        open = true;
        step = 0;
        break;
      case 'extension':
        append({ type: 'agent/status', data: command.data });
        break;
      case 'replace': {
        if (surface.length === 0) break;
        const start = Math.floor(command.at * surface.length);
        let end = Math.min(surface.length - 1, start + command.span);
        let type: string = replaceTypes[command.as]!;
        const first = surface[0]!;
        if (start === 0 && first.type === 'system/message') {
          type = 'system/message';
          end = 0;
        }
        if (type === 'tool/result') {
          const target = surface[start]!;
          if (start !== end || target.type !== 'tool/result') type = 'user/message';
          else {
            const data = target.data as { message: object };
            append(
              replaceDraft(surface, start, end, type, { ...data, message: { ...data.message, content: command.text } }),
            );
            break;
          }
        }
        append(replaceDraft(surface, start, end, type, dataFor(type, command.text, turn, step)));
        break;
      }
      case 'systemChange': {
        const first = surface[0];
        if (first?.type === 'system/message') {
          append(replaceDraft(surface, 0, 0, 'system/message', { content: command.content }));
        } else append({ type: 'system/message', data: { content: command.content } });
        break;
      }
      case 'prune': {
        const results = surface.filter((node) => node.type === 'tool/result');
        const target = results[Math.floor(command.at * results.length)];
        if (target === undefined) break;
        const index = surface.indexOf(target);
        const data = target.data as { message: object };
        const pruned = { ...data, message: { ...data.message, content: `[pruned ${command.output}]` } };
        append(replaceDraft(surface, index, index, 'tool/result', pruned));
        break;
      }
    }
  }
  return appended;
}

function dataFor(type: string, content: string, turn: number, step: number): unknown {
  switch (type) {
    case 'user/message':
      return { role: 'user', content };
    case 'system/message':
      return { content };
    default:
      return { turn: Math.max(turn, 1), step: Math.max(step, 1), message: { role: 'assistant', content } };
  }
}

function replaceDraft(
  surface: readonly SurfaceNode[],
  start: number,
  end: number,
  type: string,
  data: unknown,
): EventDraft {
  const covered = surface.slice(start, end + 1).map((node) => node.seq);
  return {
    type,
    data,
    surfaceOp: { op: 'replace', startSeq: surface[start]!.seq, endSeq: surface[end]!.seq },
    sourceEventSeqs: covered,
  };
}
