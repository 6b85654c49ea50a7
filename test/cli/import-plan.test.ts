import { describe, expect, it } from 'vitest';
import { importBatches, planImport } from '../../server/cli/import-plan.ts';
import { CliFailure } from '../../server/cli/command.ts';
import { parseJsonl, toJsonl, type SessionEvent } from '../../shared/index.ts';

const tick = (seq: number, time: number): SessionEvent =>
  ({ seq, type: 'test/tick', time, data: { seq } }) as SessionEvent;

describe('import planning', () => {
  it('cuts appends at every change of time and at the event and byte limits; keys follow the content', () => {
    const events = [tick(0, 1), tick(1, 1), tick(2, 1), tick(3, 2), tick(4, 3), tick(5, 3)];
    const batches = importBatches(events, { maxEvents: 2, maxBytes: 1_000 });
    expect(batches.map((batch) => batch.events.map((event) => event.seq))).toEqual([[0, 1], [2], [3], [4, 5]]);
    expect(batches.map((batch) => batch.time)).toEqual([1, 1, 2, 3]);
    expect(importBatches(events, { maxEvents: 2, maxBytes: 1_000 })).toEqual(batches);
    expect(new Set(batches.map((batch) => batch.idempotencyKey)).size).toBe(4);
    const small = importBatches(events.slice(0, 3), { maxEvents: 100, maxBytes: 80 });
    expect(small.map((batch) => batch.events.length)).toEqual([1, 1, 1]);
  });

  it('resumes after the events an interrupted import left, and refuses a target that differs', () => {
    const file = toJsonl([tick(0, 1), tick(1, 2), tick(2, 3)]);
    const now = Date.now();
    expect(planImport(file, [], { append: false, now })).toMatchObject({ start: 0 });
    expect(planImport(file, parseJsonl(toJsonl([tick(0, 1), tick(1, 2)])), { append: false, now })).toMatchObject({
      start: 2,
    });
    expect(() => planImport(file, [tick(0, 5)], { append: false, now })).toThrow(CliFailure);
    expect(() => planImport(file, [tick(0, 1)], { append: false, now: 2 })).toThrow(/^line 3: time 3 is in the future/);
  });

  it('with --append, a file that starts at the target length continues it; line numbers are the file’s', () => {
    const target = [tick(0, 1), tick(1, 2)];
    const plan = planImport(toJsonl([tick(2, 3), tick(3, 3)]), target, { append: true, now: Date.now() });
    expect(plan.start).toBe(0);
    expect(plan.events.map((event) => event.seq)).toEqual([2, 3]);
    const bad = `${toJsonl([tick(2, 3)])}{"seq":9,"type":"test/tick","time":3,"data":{}}\n`;
    expect(() => planImport(bad, target, { append: true, now: Date.now() })).toThrow(/^line 2: /);
    expect(() => planImport(toJsonl([tick(3, 3)]), target, { append: true, now: Date.now() })).toThrow(
      /^line 1: with --append the first event's seq must be at most the target's length \(2\)/,
    );
  });
});
