import { describe, expect, it } from 'vitest';
import type { ProjectionChange, SessionEvent } from '../../shared/index.ts';
import { MessageProjector, deriveMessages } from '../../shared/index.ts';
import { caught, drafts, replace, sessionOf } from './support/session-builders.ts';

function changes(events: readonly SessionEvent[]): ProjectionChange[] {
  const projector = new MessageProjector();
  return events.map((event) => projector.apply(event));
}

describe('MessageProjector', () => {
  it('reports appended messages and unchanged for events that project to nothing', () => {
    const session = sessionOf(
      drafts.turnStart(),
      drafts.user('a'),
      drafts.assistant([]),
      drafts.system(''),
      drafts.assistant('b'),
    );
    expect(changes(session.events)).toEqual([
      { kind: 'unchanged' },
      { kind: 'appended', index: 0, messages: [{ role: 'user', content: 'a' }] },
      { kind: 'unchanged' },
      { kind: 'unchanged' },
      { kind: 'appended', index: 1, messages: [{ role: 'assistant', content: 'b' }] },
    ]);
  });

  it('reports a replacement as a splice of only the covered messages', () => {
    const session = sessionOf(
      drafts.system('s'),
      drafts.user('a'),
      drafts.assistant([]),
      drafts.user('b'),
      drafts.result('c', 'long', {}, 1, 1),
      drafts.user('c'),
      drafts.user('ab', replace(1, 3, [1, 2, 3])),
      drafts.result('c', 'short', replace(4, 4, [4])),
      drafts.system('', replace(0, 0, [0])),
      drafts.system('s2', replace(8, 8, [8])),
    );
    const all = changes(session.events);
    expect(all.slice(6)).toEqual([
      { kind: 'replaced', start: 1, deleteCount: 2, messages: [{ role: 'user', content: 'ab' }] },
      { kind: 'replaced', start: 2, deleteCount: 1, messages: [expect.objectContaining({ content: 'short' })] },
      { kind: 'replaced', start: 0, deleteCount: 1, messages: [] },
      { kind: 'replaced', start: 0, deleteCount: 0, messages: [{ role: 'system', content: 's2' }] },
    ]);
    // Replaying the splices over an array gives the from-scratch result.
    const replayed: unknown[] = [];
    for (const change of all) {
      if (change.kind === 'appended') replayed.splice(change.index, 0, ...change.messages);
      if (change.kind === 'replaced') replayed.splice(change.start, change.deleteCount, ...change.messages);
    }
    expect(replayed).toEqual(deriveMessages(session.events));
  });

  it('keeps messages as the events’ own frozen data (projected once, never copied)', () => {
    const session = sessionOf(drafts.user('a'), drafts.result('c', 'x'));
    const projector = new MessageProjector();
    projector.applyAll(session.events);
    expect(projector.messages[0]).toBe(session.eventAt(0)!.data);
    expect(projector.messages[1]).toBe((session.eventAt(1)!.data as { message: unknown }).message);
    expect(projector.length).toBe(2);
  });

  it('rejects events out of seq order and replacements off the surface, changing nothing', () => {
    const session = sessionOf(drafts.user('a'), drafts.turnStart(), drafts.user('b', replace(0, 0, [0])));
    const projector = new MessageProjector();
    expect(caught(() => projector.apply(session.eventAt(1)!)).code).toBe('INVALID_EVENT');
    projector.apply(session.eventAt(0)!);
    const bogus = {
      ...session.eventAt(1)!,
      type: 'user/message',
      surfaceOp: { op: 'replace', startSeq: 1, endSeq: 1 },
    };
    expect(caught(() => projector.apply(bogus as SessionEvent)).code).toBe('SURFACE_VIOLATION');
    expect(projector.length).toBe(1);
    projector.apply(session.eventAt(1)!);
    projector.apply(session.eventAt(2)!);
    expect(projector.messages).toEqual([{ role: 'user', content: 'b' }]);
  });

  it('projects each node once: later appends and replacements keep the other messages as the same objects', () => {
    const session = sessionOf(drafts.system('s'), drafts.user('a'), drafts.result('c', 'long'), drafts.user('b'));
    const projector = new MessageProjector();
    projector.applyAll(session.events);
    const [system, user, , last] = projector.messages;
    session.append(drafts.result('c', 'short', replace(2, 2, [2])));
    session.append(drafts.user('c'));
    projector.applyAll(session.events.slice(4));
    expect(projector.messages[0]).toBe(system); // a system message is built once, not per derivation
    expect(projector.messages[1]).toBe(user);
    expect(projector.messages[3]).toBe(last);
    expect(projector.messages.map((message) => message.content)).toEqual(['s', 'a', 'short', 'b', 'c']);
  });
});
