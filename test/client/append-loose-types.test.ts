import { describe, expect, it } from 'vitest';
import type { HubClient } from '../../client/index.ts';
import type { EventDraft } from '../../shared/index.ts';

// Compile-time checks: `npm run typecheck` fails when a `@ts-expect-error` line stops being an error, or when a
// call below stops compiling. The calls are built but never run (no hub is needed to check types).
describe('HubClient.append types', () => {
  it('takes drafts whose type is only known at run time (EventDraft), one or a list', () => {
    const calls = (client: HubClient, built: EventDraft, list: readonly EventDraft[]): unknown[] => [
      client.append('s', built),
      client.append('s', list),
      client.append('s', [built, built]),
    ];
    expect(calls).toBeTypeOf('function');
  });

  it('still refuses literal drafts with a known type and the wrong data shape', () => {
    const calls = (client: HubClient): unknown[] => [
      // @ts-expect-error `trun` is a typo: turn/start needs { turn }
      client.append('s', { type: 'turn/start', data: { trun: 1 } }),
      // @ts-expect-error the tool/result data lacks `message`
      client.append('s', [{ type: 'tool/result', data: { turn: 1, step: 1 } }]),
      client.append('s', { type: 'turn/start', data: { turn: 1 } }),
    ];
    expect(calls).toBeTypeOf('function');
  });
});
