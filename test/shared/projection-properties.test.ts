import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DerivedMessage } from '../../shared/index.ts';
import { MessageProjector, Session, deriveMessages, isSurfaceType, parseJsonl, toJsonl } from '../../shared/index.ts';
import { buildLog, logCommands } from './support/log-arbitrary.ts';

const runs = { numRuns: 100 };

describe('projection properties over random valid logs', () => {
  it('incremental projection (Session and MessageProjector) equals from-scratch after every event', () => {
    fc.assert(
      fc.property(logCommands, (commands) => {
        const session = new Session({ clock: () => 1 });
        const projector = new MessageProjector();
        const kept: { messages: readonly DerivedMessage[]; copy: string }[] = [];
        session.subscribe((event) => {
          projector.apply(event);
          const expected = deriveMessages(session.events);
          expect(session.deriveMessages()).toEqual(expected);
          expect(projector.messages).toEqual(expected);
          const messages = session.deriveMessages();
          kept.push({ messages, copy: JSON.stringify(messages) });
        });
        buildLog(commands, session);
        // Arrays handed out earlier never changed afterwards.
        for (const { messages, copy } of kept) expect(JSON.stringify(messages)).toBe(copy);
      }),
      runs,
    );
  });

  it('non-surface events never change the messages', () => {
    fc.assert(
      fc.property(logCommands, (commands) => {
        const session = new Session({ clock: () => 1 });
        buildLog(commands, session);
        const projector = new MessageProjector();
        for (const event of session.events) {
          const before = projector.messages.slice();
          const change = projector.apply(event);
          if (!isSurfaceType(event.type)) {
            expect(change).toEqual({ kind: 'unchanged' });
            expect(projector.messages).toEqual(before);
          }
        }
      }),
      runs,
    );
  });

  it('replay through JSONL gives equal events and messages', () => {
    fc.assert(
      fc.property(logCommands, (commands) => {
        const session = new Session({ clock: () => 1 });
        buildLog(commands, session);
        const replayed = Session.fromLog(parseJsonl(toJsonl(session.events)));
        expect(replayed.events).toEqual(session.events);
        expect(replayed.deriveMessages()).toEqual(session.deriveMessages());
      }),
      runs,
    );
  });

  it('check() never mutates, and accepts a batch exactly when appending it one by one succeeds', () => {
    const batchCommands = fc.tuple(logCommands, logCommands, fc.nat(20), fc.nat(20));
    fc.assert(
      fc.property(batchCommands, ([prefix, rest, badStart, badEnd]) => {
        const session = new Session({ clock: () => 1 });
        buildLog(prefix, session);
        const replica = Session.fromLog(session.events);
        const batch = buildLog(rest, replica);
        // Sometimes add an arbitrary (often invalid) replacement at the end of the batch.
        if (badStart % 3 === 0) {
          batch.push({
            type: 'user/message',
            data: { role: 'user', content: 'x' },
            surfaceOp: { op: 'replace', startSeq: badStart, endSeq: badEnd },
            sourceEventSeqs: [badStart, badEnd].filter((seq, index, all) => all.indexOf(seq) === index),
          });
        }
        const before = { events: session.events, messages: session.deriveMessages(), length: session.length };
        let validated: unknown;
        try {
          validated = session.check(batch);
        } catch {
          validated = undefined;
        }
        expect(session.events).toBe(before.events);
        expect(session.deriveMessages()).toBe(before.messages);
        expect(session.length).toBe(before.length);

        const oneByOne = Session.fromLog(session.events);
        let appendedAll = true;
        for (const draft of batch) {
          try {
            oneByOne.append(draft);
          } catch {
            appendedAll = false;
            break;
          }
        }
        expect(validated !== undefined).toBe(appendedAll);
        if (appendedAll) {
          const committed = oneByOne.events.slice(session.length).map(({ seq: _s, time: _t, ...draft }) => draft);
          expect(validated).toEqual(committed);
        }
      }),
      runs,
    );
  });
});
