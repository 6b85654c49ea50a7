import { describe, expect, it } from 'vitest';
import { committedEvents, prepareDraft } from '../../client/committed.ts';
import { HubClientError } from '../../client/errors.ts';

describe('prepareDraft / committedEvents', () => {
  it('copies and freezes data, defaults surfaceOp on surface types only', () => {
    const content = { text: 'hi' };
    const user = prepareDraft({ type: 'user/message', data: { role: 'user', content } }, 0);
    content.text = 'changed';
    expect(user).toEqual({
      type: 'user/message',
      data: { role: 'user', content: { text: 'hi' } },
      surfaceOp: 'append',
    });
    expect(Object.isFrozen(user.data)).toBe(true);
    const start = prepareDraft({ type: 'turn/start', data: { turn: 1 } }, 1);
    expect(start).toEqual({ type: 'turn/start', data: { turn: 1 } });
    const extension = prepareDraft({ type: 'x/custom', data: [1] }, 2);
    expect('surfaceOp' in extension).toBe(false);
  });

  it('rejects data that is not lossless JSON with INVALID_JSON and the path', () => {
    let caught: unknown;
    try {
      prepareDraft({ type: 'x/y', data: { bad: Number.NaN } }, 3);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HubClientError);
    expect((caught as HubClientError).code).toBe('INVALID_JSON');
    expect((caught as HubClientError).details['index']).toBe(3);
  });

  it('numbers the drafts from the ack and stamps its commit time', () => {
    const drafts = [
      prepareDraft({ type: 'turn/start', data: { turn: 1 } }, 0),
      prepareDraft({ type: 'x/y', data: 1 }, 1),
    ];
    const ack = {
      type: 'ack',
      id: 1,
      sessionId: 's',
      epoch: 'e',
      firstSeq: 4,
      lastSeq: 5,
      time: 99,
      duplicate: false,
    } as const;
    expect(committedEvents(drafts, ack)).toEqual([
      { seq: 4, type: 'turn/start', time: 99, data: { turn: 1 } },
      { seq: 5, type: 'x/y', time: 99, data: 1 },
    ]);
    expect(() => committedEvents(drafts.slice(1), ack)).toThrow(HubClientError);
  });
});
