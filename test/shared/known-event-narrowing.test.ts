import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ExtensionEvent, KnownEvent, SessionEvent, TurnEndReasonKind } from '../../shared/index.ts';
import { isKnownEvent, isSurfaceType } from '../../shared/index.ts';
import { sessionOf, drafts } from './support/session-builders.ts';

/** Compiles only if `switch (event.type)` narrows `event.data` after `isKnownEvent` (checked by `tsc`). */
function summarize(event: SessionEvent): string {
  if (!isKnownEvent(event)) {
    expectTypeOf(event).toEqualTypeOf<ExtensionEvent>();
    return `extension ${event.type}`;
  }
  switch (event.type) {
    case 'turn/start':
      // @ts-expect-error a turn/start has no callId
      void event.data.callId;
      return `turn ${event.data.turn}`;
    case 'turn/end':
      expectTypeOf(event.data.reason.kind).toEqualTypeOf<TurnEndReasonKind>();
      return `end ${event.data.turn} ${event.data.reason.kind}`;
    case 'step/start':
    case 'step/end':
      return `${event.type} ${event.data.turn}.${event.data.step}`;
    case 'system/message':
      expectTypeOf(event.data.content).toEqualTypeOf<string>();
      return `system ${event.data.content}`;
    case 'user/message':
      return `user ${JSON.stringify(event.data.content)}`;
    case 'assistant/chunk':
      return `chunk ${event.data.step}`;
    case 'assistant/message':
      expectTypeOf(event.surfaceOp).not.toBeUndefined();
      return `assistant ${event.data.message.role}`;
    case 'tool/call':
      expectTypeOf(event.data.arguments).toEqualTypeOf<string>();
      return `call ${event.data.callId} ${event.data.name}`;
    case 'tool/result':
      expectTypeOf(event.data.message.isError).toEqualTypeOf<boolean>();
      return `result ${event.data.message.toolName} ${String(event.data.message.isError)}`;
    case 'request/header':
      return `header ${event.data.reason}`;
  }
}

describe('isKnownEvent narrows the event union', () => {
  it('lets switch (event.type) read each type’s data', () => {
    const session = sessionOf(
      drafts.turnStart(),
      drafts.stepStart(),
      drafts.call('c1', 'grep'),
      drafts.result('c1', 'out', {}, 1, 1, 'grep'),
      { type: 'compaction/prune', data: { shadowedSeqs: [3] } },
      drafts.turnEnd(1, 'aborted'),
    );
    expect(session.events.map(summarize)).toEqual([
      'turn 1',
      'step/start 1.1',
      'call c1 grep',
      'result grep false',
      'extension compaction/prune',
      'end 1 aborted',
    ]);
  });

  it('is false for extension types and true for every catalog type', () => {
    const extension = { seq: 0, type: 'agent/status', time: 0, data: null } as SessionEvent;
    expect(isKnownEvent(extension)).toBe(false);
    const known = { seq: 0, type: 'tool/call', time: 0, data: {} } as SessionEvent;
    expect(isKnownEvent(known)).toBe(true);
    expectTypeOf<Extract<KnownEvent, { type: 'tool/call' }>['data']['callId']>().toEqualTypeOf<string>();
  });

  it('isSurfaceType names exactly the four surface types', () => {
    const types = ['system/message', 'user/message', 'assistant/message', 'tool/result', 'tool/call', 'x/y'];
    expect(types.filter(isSurfaceType)).toEqual(types.slice(0, 4));
  });
});
