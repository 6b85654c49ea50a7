import type { EventDraft, SessionEvent } from '../../../shared/index.ts';
import { Session, SessionLogError } from '../../../shared/index.ts';

/** The SessionLogError that `action` throws (fails the test when it does not throw one). */
export function caught(action: () => unknown): SessionLogError {
  try {
    action();
  } catch (error) {
    if (error instanceof SessionLogError) return error;
    throw error;
  }
  throw new Error('expected a SessionLogError, nothing was thrown');
}

export const drafts = {
  turnStart: (turn = 1): EventDraft => ({ type: 'turn/start', data: { turn } }),
  turnEnd: (turn = 1, kind = 'completed'): EventDraft => ({ type: 'turn/end', data: { turn, reason: { kind } } }),
  stepStart: (turn = 1, step = 1): EventDraft => ({ type: 'step/start', data: { turn, step } }),
  stepEnd: (turn = 1, step = 1): EventDraft => ({ type: 'step/end', data: { turn, step } }),
  system: (content: string, extra: Partial<EventDraft> = {}): EventDraft => ({
    type: 'system/message',
    data: { content },
    ...extra,
  }),
  user: (text: string, extra: Partial<EventDraft> = {}): EventDraft => ({
    type: 'user/message',
    data: { role: 'user', content: text },
    ...extra,
  }),
  assistant: (content: unknown, extra: Partial<EventDraft> = {}, turn = 1, step = 1): EventDraft => ({
    type: 'assistant/message',
    data: { turn, step, message: { role: 'assistant', content } },
    ...extra,
  }),
  chunk: (text: string, turn = 1, step = 1): EventDraft => ({
    type: 'assistant/chunk',
    data: { turn, step, chunk: { type: 'text-delta', text } },
  }),
  call: (callId: string, name = 'bash', turn = 1, step = 1): EventDraft => ({
    type: 'tool/call',
    data: { turn, step, callId, name, arguments: '{}' },
  }),
  result: (
    callId: string | undefined,
    content: unknown,
    extra: Partial<EventDraft> = {},
    turn = 1,
    step = 1,
    toolName = 'bash',
  ): EventDraft => ({
    type: 'tool/result',
    data: {
      turn,
      step,
      message: {
        role: 'tool',
        ...(callId === undefined ? {} : { toolCallId: callId }),
        toolName,
        content,
        isError: false,
      },
    },
    ...extra,
  }),
};

/** A session with the given drafts appended (clock fixed at 1000 + seq). */
export function sessionOf(...items: EventDraft[]): Session {
  let tick = 1000;
  const session = new Session({ clock: () => tick++ });
  for (const item of items) session.append(item);
  return session;
}

/** A plain (unfrozen, JSON-parsed) copy of committed events, as a store would hand them back. */
export function reparsed(events: readonly SessionEvent[]): SessionEvent[] {
  return JSON.parse(JSON.stringify(events)) as SessionEvent[];
}

export function replace(startSeq: number, endSeq: number, sources: readonly number[]): Partial<EventDraft> {
  return { surfaceOp: { op: 'replace', startSeq, endSeq }, sourceEventSeqs: sources };
}
