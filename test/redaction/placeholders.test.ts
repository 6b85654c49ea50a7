import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import { Session, deriveMessages, isKnownEvent, validateLifecycle } from '../../shared/index.ts';
import { toAnthropic, toOpenAIChat, toOpenAIResponses } from '../../shared/adapters/index.ts';
import { REDACTED_TEXT, redactEventData } from '../../shared/redaction.ts';
import { FIXTURE_NAMES, fixtureLog } from '../shared/support/fixtures.ts';

function events(text: string): SessionEvent[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SessionEvent);
}

function redacted(log: readonly SessionEvent[], seqs: ReadonlySet<number>): SessionEvent[] {
  return log.map((event) =>
    seqs.has(event.seq) ? ({ ...event, data: redactEventData(event.type, event.data) } as SessionEvent) : event,
  );
}

/** Every check a reader of the log makes: replay with the log core, lifecycle, the three adapters. */
function accepted(log: readonly SessionEvent[]): void {
  const session = Session.fromLog(log);
  toAnthropic(session.events);
  toOpenAIChat(session.events);
  toOpenAIResponses(session.events);
}

describe.each(FIXTURE_NAMES)('redaction placeholders, fixture %s', (name) => {
  const log = events(fixtureLog(name));

  it('keep the log valid for the core and every adapter when one event is redacted, for each event', () => {
    for (const event of log) {
      const changed = redacted(log, new Set([event.seq]));
      expect(() => accepted(changed), `seq ${event.seq} (${event.type})`).not.toThrow();
      expect(validateLifecycle(changed)).toEqual(validateLifecycle(log));
    }
  });

  it('keep the log valid when every event is redacted, and no original text survives', () => {
    const all = redacted(log, new Set(log.map((event) => event.seq)));
    expect(() => accepted(all)).not.toThrow();
    expect(deriveMessages(all).length).toBe(deriveMessages(log).length);
    const text = JSON.stringify(all.map((event) => event.data));
    for (const event of log) {
      if (isKnownEvent(event) && event.type === 'user/message' && typeof event.data.content === 'string') {
        expect(text).not.toContain(event.data.content);
      }
      if (isKnownEvent(event) && event.type === 'tool/call' && event.data.arguments !== '{}')
        expect(text).not.toContain(event.data.arguments);
    }
    expect(text).toContain(REDACTED_TEXT);
  });

  it('are idempotent: redacting a placeholder gives the same data', () => {
    for (const event of log) {
      const once = redactEventData(event.type, event.data);
      expect(redactEventData(event.type, once)).toStrictEqual(once);
    }
  });
});

describe('redaction placeholders of single types', () => {
  it('keep tool call pairing and replace arguments, results and extension data', () => {
    expect(
      redactEventData('tool/call', { turn: 1, step: 2, callId: 'c', name: 'n', arguments: '{"k":"sk-1"}' }),
    ).toEqual({ turn: 1, step: 2, callId: 'c', name: 'n', arguments: '{}' });
    const result = {
      turn: 1,
      step: 1,
      message: { role: 'tool', toolCallId: 'c', toolName: 'n', content: 'AKIA…', isError: false },
      meta: { secret: 'x' },
    };
    expect(redactEventData('tool/result', result)).toEqual({
      turn: 1,
      step: 1,
      message: { role: 'tool', toolCallId: 'c', toolName: 'n', isError: false, content: REDACTED_TEXT },
      meta: REDACTED_TEXT,
    });
    expect(redactEventData('app/note', { secret: 'x' })).toBe(REDACTED_TEXT);
    expect(redactEventData('system/message', { content: '' })).toEqual({ content: '' });
  });
});
