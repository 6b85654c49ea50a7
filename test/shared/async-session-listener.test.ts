import { describe, expect, it, vi } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import { Session } from '../../shared/index.ts';
import { drafts } from './support/session-builders.ts';

// Issue 26, item 14: `session.subscribe(async () => …)` whose promise rejects became an unhandled rejection (which
// ends a Node process, and fails the test through the process guard). It goes to `onListenerError` with the
// event, like a throw; the append and the other listeners go on.
describe('Session: an async listener that rejects', () => {
  it('is reported to onListenerError with its event, and the others still run', async () => {
    const reported: { message: string; seq: number }[] = [];
    const session = new Session({
      onListenerError: (error, event) => reported.push({ message: (error as Error).message, seq: event.seq }),
    });
    const seen: number[] = [];
    session.subscribe(async (event) => {
      await Promise.resolve();
      throw new Error(`async ${event.seq}`);
    });
    session.subscribe((event) => Promise.reject(new Error(`rejected ${event.seq}`)));
    session.subscribe((event) => void seen.push(event.seq));
    const committed: SessionEvent = session.append(drafts.user('a'));
    session.applyCommitted([{ ...session.eventAt(0)!, seq: 1, time: committed.time } as SessionEvent]);
    expect(seen).toEqual([0, 1]);
    await vi.waitFor(() => expect(reported).toHaveLength(4), { timeout: 20_000, interval: 10 });
    expect(reported).toEqual(
      expect.arrayContaining([
        { message: 'async 0', seq: 0 },
        { message: 'rejected 0', seq: 0 },
        { message: 'async 1', seq: 1 },
        { message: 'rejected 1', seq: 1 },
      ]),
    );
  });

  it('with the default onListenerError (console.error), it is logged, not unhandled', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const session = new Session();
      session.subscribe(() => Promise.reject(new Error('quiet')));
      session.append(drafts.user('a'));
      await vi.waitFor(() => expect(logged).toHaveBeenCalledTimes(1), { timeout: 20_000, interval: 10 });
      expect(logged.mock.calls[0]).toContainEqual(new Error('quiet'));
    } finally {
      logged.mockRestore();
    }
  });
});
