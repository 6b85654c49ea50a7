import { describe, expect, it } from 'vitest';
import { emptyWriterState, foldEvent, systemPromptSeq } from '../../client/writer-state.ts';
import type { FoldableEvent } from '../../client/writer-state.ts';

const log: FoldableEvent[] = [
  { seq: 0, type: 'system/message', data: { content: 'v1' }, surfaceOp: 'append' },
  { seq: 1, type: 'user/message', data: { role: 'user', content: 'hi' }, surfaceOp: 'append' },
  { seq: 2, type: 'turn/start', data: { turn: 1 } },
  { seq: 3, type: 'step/start', data: { turn: 1, step: 1 } },
  { seq: 4, type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: 'a' } },
  { seq: 5, type: 'tool/call', data: { turn: 1, step: 1, callId: 'c1', name: 'add', arguments: '{}' } },
  { seq: 6, type: 'tool/call', data: { turn: 1, step: 1, callId: 'c2', name: 'add', arguments: '{}' } },
  {
    seq: 7,
    type: 'tool/result',
    data: { turn: 1, step: 1, message: { role: 'tool', toolName: 'add', content: '1', isError: false } },
    surfaceOp: 'append',
  },
  {
    seq: 8,
    type: 'system/message',
    data: { content: 'v2' },
    surfaceOp: { op: 'replace', startSeq: 0, endSeq: 0 },
  },
];

describe('writer state fold', () => {
  it('restores turn, step, open calls, chunk seqs and the system node from a log', () => {
    const state = emptyWriterState();
    for (const event of log) foldEvent(state, event);
    expect(state.nextSeq).toBe(9);
    expect(state.turn).toBe(1);
    expect(state.turnOpen).toBe(true);
    expect(state.step).toBe(1);
    expect(state.stepOpen).toBe(true);
    // The result without toolCallId answered the oldest open call of the same tool.
    expect([...state.openCalls.keys()]).toEqual(['c2']);
    expect(state.chunkSeqs).toEqual([4]);
    expect(systemPromptSeq(state)).toBe(8);
    expect(state.surface.map((node) => node.seq)).toEqual([8, 1, 7]);
  });

  it('closing the turn clears steps and calls; the next turn numbers steps from 1', () => {
    const state = emptyWriterState();
    for (const event of log) foldEvent(state, event);
    foldEvent(state, { seq: 9, type: 'step/end', data: { turn: 1, step: 1 } });
    foldEvent(state, { seq: 10, type: 'turn/end', data: { turn: 1, reason: { kind: 'aborted' } } });
    expect(state.turnOpen).toBe(false);
    expect(state.openCalls.size).toBe(0);
    foldEvent(state, { seq: 11, type: 'turn/start', data: { turn: 2 } });
    expect(state.turn).toBe(2);
    expect(state.step).toBe(0);
  });
});
