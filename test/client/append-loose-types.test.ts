import { describe, expect } from 'vitest';
import { HubClientError } from '../../client/index.ts';
import type { HubClient } from '../../client/index.ts';
import type { EventDraft } from '../../shared/index.ts';
import { it } from '../helpers/fixtures.ts';

/** A draft of an application type that names its type but not its data (data stays `unknown`, as in EventDraft). */
interface NoteDraft extends EventDraft {
  readonly type: 'app/note';
}

// Compile-time checks: `npm run typecheck` fails when a `@ts-expect-error` line stops being an error, or when a
// call below stops compiling. The calls of the first two tests are built but never run; the last one runs them.
describe('HubClient.append types', () => {
  it('takes drafts whose type is only known at run time (EventDraft), one or a list', () => {
    const calls = (client: HubClient, built: EventDraft, list: readonly EventDraft[], note: NoteDraft): unknown[] => [
      client.append('s', built),
      client.append('s', list),
      client.append('s', [built, built]),
      // Issue 26, item 21: values typed as EventDraft whose `type` is a literal, data `unknown`, were refused.
      client.append('s', note),
      client.append('s', { type: 'app/note', data: JSON.parse('1') as unknown }),
      client.append('s', [note, built, { type: 'turn/start', data: { turn: 1 } }]),
    ];
    // In a generic function the draft is widened, as docs/client.md says.
    const generic = <D extends EventDraft>(client: HubClient, draft: D) => client.append('s', draft as EventDraft);
    expect(generic).toBeTypeOf('function');
    expect(calls).toBeTypeOf('function');
  });

  it('still refuses literal drafts with a known type and the wrong data shape, also next to built drafts', () => {
    const calls = (client: HubClient, built: EventDraft): unknown[] => [
      // @ts-expect-error `trun` is a typo: turn/start needs { turn }
      client.append('s', { type: 'turn/start', data: { trun: 1 } }),
      // @ts-expect-error the tool/result data lacks `message`
      client.append('s', [{ type: 'tool/result', data: { turn: 1, step: 1 } }]),
      // @ts-expect-error a typo in a literal is still one when a draft built at run time rides in the same batch
      client.append('s', [built, { type: 'turn/start', data: { trun: 1 } }]),
      // @ts-expect-error an extension literal carries no surfaceOp, next to a built draft too
      client.append('s', [built, { type: 'app/status', data: 1, surfaceOp: 'append' }]),
      client.append('s', { type: 'turn/start', data: { turn: 1 } }),
    ];
    expect(calls).toBeTypeOf('function');
  });

  it('appends EventDraft values to a real hub: committed as given, and a bad one refused by the hub', async ({
    memoryHubClient: { client, store },
  }) => {
    const built: EventDraft = JSON.parse('{"type":"user/message","data":{"role":"user","content":"hi"}}') as EventDraft;
    const note: NoteDraft = { type: 'app/note', data: { text: 'n' } };
    const list: readonly EventDraft[] = [note, { type: 'turn/start', data: { turn: 1 } }];
    expect((await client.append('types/1', built)).map((event) => event.seq)).toEqual([0]);
    expect((await client.append('types/1', list)).map((event) => event.type)).toEqual(['app/note', 'turn/start']);
    const wrong: EventDraft = { type: 'turn/start', data: { trun: 1 } };
    const refused: unknown = await client.append('types/1', wrong).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HubClientError);
    expect(refused).toMatchObject({ code: 'INVALID_EVENT' });
    const stored = await store.read('types/1', 0, 10);
    expect(stored.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'user/message', data: { role: 'user', content: 'hi' } },
      { type: 'app/note', data: { text: 'n' } },
      { type: 'turn/start', data: { turn: 1 } },
    ]);
  });
});
