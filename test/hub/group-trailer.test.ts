// planGroup with trailers (the audit of a redaction at append): each trailer is built from its append's first seq,
// validated with the group, sent as a batch of its own behind its append, and left out of the append's events.
import { describe, expect, it } from 'vitest';
import { ownEvents, planGroup, storeBatches, type PlannedAppend } from '../../server/append/group.ts';
import { LogValidator } from '../../shared/log-validator.ts';
import type { EventDraft } from '../../shared/index.ts';

const note = (text: string): EventDraft => ({ type: 'app/note', data: { text } });
const marker = {
  build: (firstSeq: number): EventDraft => ({ type: 'audit/redaction', data: { firstSeq } }),
  maxBytes: 0,
};

function append(events: EventDraft[], options: { key?: string; trailer?: boolean } = {}): PlannedAppend {
  return {
    input: {
      events,
      ...(options.key === undefined ? {} : { idempotencyKey: options.key }),
      ...(options.trailer === true ? { trailer: marker } : {}),
    },
    ready: true,
    bytes: 10,
  };
}

describe('planGroup with trailers', () => {
  it('builds each trailer from its append’s first seq and keeps it out of the append’s batch', () => {
    const log = new LogValidator();
    log.checkDrafts([note('a'), note('b')], true);
    const pending = [
      append([note('c'), note('d')], { key: 'k1', trailer: true }),
      append([note('e')], { key: 'k2' }),
      append([note('f')], { trailer: true }),
    ];
    const plan = planGroup(pending, log, { maxEvents: 100, maxBytes: 1000 });
    expect(plan.kind).toBe('group');
    if (plan.kind !== 'group') return;
    expect(plan.items).toHaveLength(3);
    expect(plan.batches.map((batch) => batch.events.length)).toEqual([2, 1, 1]);
    expect(plan.batches.map((batch) => batch.idempotencyKey)).toEqual(['k1', 'k2', undefined]);
    expect(plan.trailers.map((trailer) => trailer?.events.map((event) => event.data))).toEqual([
      [{ firstSeq: 2 }],
      undefined,
      [{ firstSeq: 6 }],
    ]);

    const { sent, owners } = storeBatches(plan.batches, plan.trailers);
    expect(sent.map((batch) => batch.events.length)).toEqual([2, 1, 1, 1, 1]);
    expect(sent.map((batch) => batch.idempotencyKey)).toEqual(['k1', undefined, 'k2', undefined, undefined]);
    expect(owners).toEqual([0, -1, 1, 2, -1]);
    const committed = [2, 3, 4, 5, 6, 7];
    expect(ownEvents(committed, plan.batches, plan.trailers)).toEqual([[2, 3], [5], [6]]);
  });

  it('counts a trailer against the group’s events, and an append that alone reaches the limit still goes', () => {
    const log = new LogValidator();
    const pending = [append([note('a'), note('b')], { trailer: true }), append([note('c')])];
    const plan = planGroup(pending, log, { maxEvents: 3, maxBytes: 1000 });
    expect(plan.kind === 'group' && plan.items.length).toBe(1);
    const alone = planGroup([append([note('a'), note('b'), note('c')], { trailer: true })], log, {
      maxEvents: 3,
      maxBytes: 1000,
    });
    expect(alone.kind === 'group' && alone.trailers[0]?.events.length).toBe(1);
  });

  it('counts a trailer’s size bound against the group’s bytes (the audit of a scan adds to the live frame)', () => {
    const log = new LogValidator();
    const audited = (text: string, maxBytes: number): PlannedAppend => {
      const plain = append([note(text)]);
      return { ...plain, bytes: 400, input: { ...plain.input, trailer: { ...marker, maxBytes } } };
    };
    // 400 + 400 fit 1000, but not with their audits' 150 each: the second waits for the next group.
    const split = planGroup([audited('a', 150), audited('b', 150)], log, { maxEvents: 100, maxBytes: 1000 });
    expect(split.kind === 'group' && split.items.length).toBe(1);
    const together = planGroup([audited('a', 100), audited('b', 100)], log, { maxEvents: 100, maxBytes: 1000 });
    expect(together.kind === 'group' && together.items.length).toBe(2);
  });

  it('fails the append whose trailer does not validate, and commits the ones before it', () => {
    const log = new LogValidator();
    const bad = append([note('b')]);
    const broken: PlannedAppend = {
      ...bad,
      input: { ...bad.input, trailer: { build: () => ({ type: '', data: {} }), maxBytes: 0 } },
    };
    const plan = planGroup([append([note('a')], { trailer: true }), broken], log, { maxEvents: 10, maxBytes: 1000 });
    expect(plan.kind === 'group' && plan.items.length).toBe(1);
    const alone = planGroup([broken], log, { maxEvents: 10, maxBytes: 1000 });
    expect(alone.kind).toBe('invalid');
  });
});
