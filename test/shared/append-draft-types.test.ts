import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AppendDraft, CheckedDrafts, EventDraft, ExtensionEventDraft } from '../../shared/index.ts';
import { Session } from '../../shared/index.ts';

/** What an SDK `append` adopting the strict draft type looks like. */
function drafts<const D extends readonly AppendDraft[]>(list: D & CheckedDrafts<D>): D {
  return list;
}

// These checks are compile-time: `npm run typecheck` fails when a `@ts-expect-error` line stops being an error.
describe('strict draft types (AppendDraft, CheckedDrafts)', () => {
  it('accepts known drafts with their data shape and extension drafts with JSON data', () => {
    const list = drafts([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'agent/status', data: { busy: true } },
    ]);
    const session = new Session();
    for (const draft of list) session.append(draft);
    expect(session.events.map((event) => event.type)).toEqual(['turn/start', 'agent/status']);
  });

  it('refuses a known type with mistyped data, even though it would fit an extension draft', () => {
    // @ts-expect-error `trun` is a typo: turn/start needs { turn }
    drafts([{ type: 'turn/start', data: { trun: 1 } }]);
    drafts([
      { type: 'agent/status', data: 1 },
      // @ts-expect-error the second draft's tool/result data lacks `message`
      { type: 'tool/result', data: { turn: 1, step: 1 } },
    ]);
    // @ts-expect-error extension drafts carry no surfaceOp
    drafts([{ type: 'agent/status', data: 1, surfaceOp: 'append' }]);
    expectTypeOf<ExtensionEventDraft<'tool/result'>['type']>().toBeNever();
    expectTypeOf<ExtensionEventDraft<'agent/status'>['type']>().toEqualTypeOf<'agent/status'>();
  });

  it('keeps EventDraft the loose run-time input: every AppendDraft is an EventDraft', () => {
    expectTypeOf<AppendDraft>().toExtend<EventDraft>();
    const type: string = 'x/y';
    expect(drafts([{ type, data: 1 }])).toHaveLength(1);
  });
});
