import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import { Session, isKnownEvent, validateLifecycle } from '../../shared/index.ts';
import { buildLog, logCommands } from './support/log-arbitrary.ts';

const runs = { numRuns: 100 };

function randomLog(commands: Parameters<typeof buildLog>[0]): Session {
  const session = new Session({ clock: () => 1 });
  buildLog(commands, session);
  return session;
}

describe('lifecycle properties over random valid logs', () => {
  it('a log built turn by turn (replacements anywhere, also after their turn ended) has no violation', () => {
    fc.assert(
      fc.property(logCommands, (commands) => {
        expect(validateLifecycle(randomLog(commands).events)).toEqual([]);
      }),
      runs,
    );
  });

  it('replacement events never change the violations: the log without them has the same ones', () => {
    fc.assert(
      fc.property(logCommands, fc.nat(5), (commands, shift) => {
        // Shifting the turn numbers by `shift` makes the run itself invalid, so there are violations to compare.
        const events = randomLog(commands).events.map((event): SessionEvent =>
          shift > 0 && isKnownEvent(event) && event.type === 'turn/start'
            ? { ...event, data: { turn: event.data.turn + shift } }
            : event,
        );
        const appendOrigin = events.filter((event) => typeof event.surfaceOp !== 'object');
        expect(validateLifecycle(events)).toEqual(validateLifecycle(appendOrigin));
      }),
      runs,
    );
  });

  it('with complete, every call that lost its result is reported unanswered exactly once, also when turn/ends are lost', () => {
    fc.assert(
      fc.property(logCommands, fc.infiniteStream(fc.boolean()), (commands, coin) => {
        const unanswered = new Set<number>();
        const callSeqs = new Map<string, number>();
        const events = randomLog(commands).events.filter((event) => {
          if (!isKnownEvent(event)) return true;
          if (event.type === 'tool/call') callSeqs.set(event.data.callId, event.seq);
          const lost = (event.type === 'turn/end' || event.type === 'tool/result') && coin.next().value === true;
          if (lost && event.type === 'tool/result' && typeof event.surfaceOp !== 'object') {
            unanswered.add(callSeqs.get(event.data.message.toolCallId!)!);
          }
          return !lost;
        });
        const reported = validateLifecycle(events, { complete: true })
          .filter((violation) => violation.code === 'CALL_UNANSWERED')
          .map((violation) => Number(/tool\/call (\d+)/.exec(violation.message)![1]));
        expect(reported.sort((a, b) => a - b)).toEqual([...unanswered].sort((a, b) => a - b));
      }),
      runs,
    );
  });
});
