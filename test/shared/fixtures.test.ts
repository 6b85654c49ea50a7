import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import { MessageProjector, Session, deriveMessages } from '../../shared/index.ts';
import { FIXTURE_NAMES, fixtureLog, fixtureMessages } from './support/fixtures.ts';

function rawEvents(text: string): SessionEvent[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SessionEvent);
}

describe.each(FIXTURE_NAMES)('fixture %s', (name) => {
  const events = rawEvents(fixtureLog(name));
  const expected = fixtureMessages(name);

  it('replays with fromLog and derives exactly the expected messages', () => {
    const session = Session.fromLog(events);
    expect(session.length).toBe(events.length);
    expect(session.deriveMessages()).toStrictEqual(expected);
  });

  it('derives the same messages from scratch and through MessageProjector', () => {
    const session = Session.fromLog(events);
    expect(deriveMessages(session.events)).toStrictEqual(expected);
    expect(new MessageProjector().applyAll(session.events)).toStrictEqual(expected);
  });

  it('derives the same messages when its events are appended one by one', () => {
    const session = new Session({ clock: () => 5 });
    for (const { seq: _seq, time: _time, ...draft } of events) session.append(draft);
    expect(session.deriveMessages()).toStrictEqual(expected);
    expect(session.events.map((event) => event.type)).toEqual(events.map((event) => event.type));
  });
});
