import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/events.ts';
import { LocalLog } from '../../client/local-log.ts';

const user = (seq: number, text: string): SessionEvent =>
  ({ seq, type: 'user/message', time: 1, data: { role: 'user', content: text }, surfaceOp: 'append' }) as SessionEvent;

describe('LocalLog', () => {
  it('accepts only the next seq: older ones are duplicates, newer ones a gap', () => {
    const log = new LocalLog(0);
    expect(log.offer(user(0, 'a')).kind).toBe('accepted');
    expect(log.offer(user(0, 'a')).kind).toBe('duplicate');
    expect(log.offer(user(2, 'c'))).toEqual({ kind: 'gap', expectedSeq: 1 });
    expect(log.offer(user(1, 'b')).kind).toBe('accepted');
    expect(log.events.map((event) => event.seq)).toEqual([0, 1]);
    expect(log.lastSeq).toBe(1);
    expect(log.messages).toEqual([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ]);
  });

  it('reports each projection step, and derives nothing when it starts after seq 0', () => {
    const log = new LocalLog(0);
    const result = log.offer(user(0, 'a'));
    expect(result).toEqual({
      kind: 'accepted',
      change: { kind: 'appended', index: 0, messages: [{ role: 'user', content: 'a' }] },
    });
    const partial = new LocalLog(5);
    expect(partial.lastSeq).toBe(4);
    expect(partial.offer(user(5, 'x')).kind).toBe('accepted');
    expect(partial.complete).toBe(false);
    expect(partial.messages).toEqual([]);
  });

  it('reset clears the copy and starts again from seq 0 with messages', () => {
    const log = new LocalLog(3);
    log.offer(user(3, 'x'));
    log.reset();
    expect(log.events).toEqual([]);
    expect(log.lastSeq).toBe(-1);
    expect(log.complete).toBe(true);
    expect(log.offer(user(0, 'fresh')).kind).toBe('accepted');
    expect(log.messages).toEqual([{ role: 'user', content: 'fresh' }]);
  });
});
