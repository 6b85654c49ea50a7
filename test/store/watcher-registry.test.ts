import { describe, expect, it } from 'vitest';
import type { CommittedBatch, StoreWatchHandlers } from '../../server/store/event-store.ts';
import { WatcherRegistry } from '../../server/store/watcher-registry.ts';
import { addMember, memberCount, membersOf, removeMember, type OneOrSet } from '../../server/one-or-set.ts';

function batch(sessionId: string, seq: number): CommittedBatch {
  return { sessionId, epoch: 'e', events: [{ seq, type: 'test/n', data: {}, time: 0 }] };
}

/** A watcher that writes its name into `log` for each delivery and resync (and runs `during` on a delivery). */
function watcher(name: string, log: string[], during?: () => void): StoreWatchHandlers {
  return {
    onCommitted: (committed) => {
      log.push(`${name}:${committed.events[0]!.seq}`);
      during?.();
    },
    onResync: () => void log.push(`${name}:resync`),
  };
}

describe('OneOrSet', () => {
  it('is the member while there is one, a Set from the second, the member again at one; keeps insertion order', () => {
    const [a, b, c] = [{ n: 'a' }, { n: 'b' }, { n: 'c' }];
    let members: OneOrSet<{ n: string }> = undefined;
    members = addMember(members, a);
    expect(members).toBe(a);
    expect(addMember(members, a)).toBe(a);
    members = addMember(addMember(members, b), c);
    expect(members).toBeInstanceOf(Set);
    expect(membersOf(members)).toEqual([a, b, c]);
    members = removeMember(members, a);
    expect(membersOf(members)).toEqual([b, c]);
    members = addMember(members, a);
    expect(membersOf(members)).toEqual([b, c, a]);
    members = removeMember(removeMember(members, c), a);
    expect(members).toBe(b);
    expect(removeMember(members, a)).toBe(b);
    expect(memberCount(members)).toBe(1);
    expect(removeMember(members, b)).toBeUndefined();
    expect(memberCount(undefined)).toBe(0);
  });
});

describe('WatcherRegistry', () => {
  it('delivers to a session’s watchers in registration order, through the one-watcher form and back', () => {
    const registry = new WatcherRegistry((error) => {
      throw error;
    });
    const log: string[] = [];
    const [a, b, c] = [watcher('a', log), watcher('b', log), watcher('c', log)];
    expect(registry.add('s', a)).toBe(true);
    expect(registry.add('s', b)).toBe(false);
    expect(registry.add('s', c)).toBe(false);
    registry.add('other', watcher('other', log));
    registry.deliver(batch('s', 0));
    expect(registry.remove('s', a)).toBe(false);
    expect(registry.remove('s', c)).toBe(false);
    registry.deliver(batch('s', 1));
    expect(registry.add('s', a)).toBe(false);
    registry.deliver(batch('s', 2));
    registry.resync(['s']);
    expect(registry.remove('s', b)).toBe(false);
    expect(registry.remove('s', b)).toBe(false); // not registered any more
    expect(registry.remove('s', a)).toBe(true);
    registry.deliver(batch('s', 3));
    expect(log).toEqual(['a:0', 'b:0', 'c:0', 'b:1', 'b:2', 'a:2', 'b:resync', 'a:resync']);
    expect(registry.sessionIds()).toEqual(['other']);
  });

  it('skips a watcher removed by an earlier one of the same delivery, and reports a handler that throws', () => {
    const reported: Error[] = [];
    const registry = new WatcherRegistry((error) => void reported.push(error));
    const log: string[] = [];
    const second = watcher('second', log);
    const failing: StoreWatchHandlers = {
      onCommitted: () => {
        throw new Error('boom');
      },
      onResync: () => undefined,
    };
    registry.add('s', failing);
    registry.add(
      's',
      watcher('first', log, () => registry.remove('s', second)),
    );
    registry.add('s', second);
    registry.deliver(batch('s', 0));
    registry.deliver(batch('s', 1));
    expect(log).toEqual(['first:0', 'first:1']);
    expect(reported.map((error) => error.message)).toEqual(['boom', 'boom']);
  });
});
