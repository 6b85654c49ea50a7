import { describe, expect, it } from 'vitest';
import type { EventDraft } from '../../shared/index.ts';
import { Session } from '../../shared/index.ts';
import { caught, drafts, replace, reparsed, sessionOf } from './support/session-builders.ts';

/** seq 0 system, 1 turn/start, 2 user, 3 assistant, 4 tool/call, 5 tool/result, 6 tool/result (second call). */
function toolSession(): Session {
  return sessionOf(
    drafts.system('be brief'),
    drafts.turnStart(),
    drafts.user('hi'),
    drafts.assistant('calling'),
    drafts.call('c1'),
    drafts.result('c1', 'long output', { sourceEventSeqs: [4] }),
    drafts.result('c2', 'other output'),
  );
}

function violation(session: Session, draft: EventDraft, path?: string) {
  const error = caught(() => session.append(draft));
  expect(error.code).toBe('SURFACE_VIOLATION');
  expect(error.seq).toBe(session.length);
  if (path !== undefined) expect(error.path).toBe(path);
  return error;
}

describe('only surface types carry surfaceOp and sourceEventSeqs', () => {
  it('rejects surfaceOp on a known non-surface type and on an extension type', () => {
    violation(new Session(), { ...drafts.turnStart(), surfaceOp: 'append' }, 'surfaceOp');
    violation(new Session(), { type: 'compaction/prune', data: {}, surfaceOp: 'append' }, 'surfaceOp');
  });

  it('rejects sourceEventSeqs on a non-surface type', () => {
    violation(sessionOf(drafts.turnStart()), { ...drafts.stepStart(), sourceEventSeqs: [0] }, 'sourceEventSeqs');
  });

  it('defaults surfaceOp to append on surface drafts', () => {
    expect(sessionOf().append(drafts.user('x')).surfaceOp).toBe('append');
  });
});

describe('surfaceOp form', () => {
  it.each([
    ['an unknown string', 'prepend', 'surfaceOp'],
    ['an unknown op', { op: 'insert', startSeq: 0, endSeq: 0 }, 'surfaceOp.op'],
    ['a negative seq', { op: 'replace', startSeq: -1, endSeq: 0 }, 'surfaceOp.startSeq'],
    ['a fractional seq', { op: 'replace', startSeq: 0, endSeq: 0.5 }, 'surfaceOp.endSeq'],
    ['an extra field', { op: 'replace', startSeq: 0, endSeq: 0, note: 1 }, 'surfaceOp'],
  ])('rejects %s', (_name, surfaceOp, path) => {
    violation(
      sessionOf(drafts.user('a')),
      { ...drafts.user('b'), surfaceOp, sourceEventSeqs: [0] } as EventDraft,
      path,
    );
  });
});

describe('sourceEventSeqs entries', () => {
  const session = () => sessionOf(drafts.user('a'), drafts.user('b'));
  it.each([
    ['a duplicate', [0, 0], 'sourceEventSeqs[1]'],
    ['a negative seq', [-1], 'sourceEventSeqs[0]'],
    ['a non-integer', [0.5], 'sourceEventSeqs[0]'],
    ['a string', ['0'], 'sourceEventSeqs[0]'],
    ['its own seq', [2], 'sourceEventSeqs[0]'],
    ['a later seq', [3], 'sourceEventSeqs[0]'],
    ['not an array', 0, 'sourceEventSeqs'],
  ])('rejects %s', (_name, sourceEventSeqs, path) => {
    violation(session(), { ...drafts.user('c'), sourceEventSeqs } as EventDraft, path);
  });

  it('allows [] only on assistant/message', () => {
    violation(session(), { ...drafts.user('c'), sourceEventSeqs: [] }, 'sourceEventSeqs');
    violation(session(), { ...drafts.result('c', 'x'), sourceEventSeqs: [] }, 'sourceEventSeqs');
    violation(session(), { ...drafts.system('s'), sourceEventSeqs: [] }, 'sourceEventSeqs');
    expect(session().append(drafts.assistant('ok', { sourceEventSeqs: [] })).sourceEventSeqs).toEqual([]);
  });
});

describe('replace ranges', () => {
  it('requires startSeq and endSeq on the surface', () => {
    const session = toolSession();
    violation(session, drafts.user('x', replace(1, 2, [1, 2])), 'surfaceOp.startSeq'); // turn/start: not surface
    violation(session, drafts.user('x', replace(2, 4, [2, 3, 4])), 'surfaceOp.endSeq'); // tool/call: not surface
    violation(session, drafts.user('x', replace(2, 99, [2])), 'surfaceOp.endSeq'); // no such event
  });

  it('rejects a seq that an earlier replacement took off the surface', () => {
    const session = toolSession();
    session.append(drafts.user('merged', replace(2, 3, [2, 3])));
    violation(session, drafts.user('again', replace(3, 3, [3])), 'surfaceOp.startSeq');
  });

  it('requires startSeq’s position ≤ endSeq’s position', () => {
    violation(toolSession(), drafts.user('x', replace(3, 2, [2, 3])), 'surfaceOp');
  });

  it('requires both seqs before the event’s own seq', () => {
    const session = toolSession();
    violation(session, drafts.user('x', replace(7, 7, [6])), 'surfaceOp.startSeq');
  });

  it('requires sourceEventSeqs to include every removed node', () => {
    violation(toolSession(), drafts.user('x', replace(2, 3, [2])), 'sourceEventSeqs');
    violation(toolSession(), { ...drafts.user('x'), surfaceOp: { op: 'replace', startSeq: 2, endSeq: 2 } });
  });

  it('replaces a range in place', () => {
    const session = toolSession();
    session.append(drafts.user('summary', replace(2, 5, [2, 3, 5])));
    expect(session.deriveMessages().map((message) => message.content)).toEqual(['be brief', 'summary', 'other output']);
  });
});

describe('tool/result replacements (pruning a tool output)', () => {
  it('may change message.content only', () => {
    const session = toolSession();
    session.append(drafts.result('c1', '[pruned]', replace(5, 5, [5])));
    expect(session.deriveMessages()[3]).toEqual({
      role: 'tool',
      toolCallId: 'c1',
      toolName: 'bash',
      content: '[pruned]',
      isError: false,
    });
  });

  it('must replace exactly one tool/result', () => {
    violation(toolSession(), drafts.result('c1', 'x', replace(5, 6, [5, 6])), 'surfaceOp');
    violation(toolSession(), drafts.result(undefined, 'x', replace(3, 3, [3])), 'surfaceOp');
  });

  it.each([
    ['toolCallId', { toolCallId: 'other' }],
    ['toolName', { toolName: 'grep' }],
    ['isError', { isError: true }],
  ])('may not change message.%s', (_name, change) => {
    const base = drafts.result('c1', 'x', replace(5, 5, [5]));
    const data = base.data as { message: object };
    violation(toolSession(), { ...base, data: { ...data, message: { ...data.message, ...change } } }, 'data');
  });

  it.each([
    ['turn', { turn: 2 }],
    ['step', { step: 2 }],
    ['error', { error: 'x' }],
    ['meta', { meta: { bytes: 1 } }],
  ])('may not change data.%s', (_name, change) => {
    const base = drafts.result('c1', 'x', replace(5, 5, [5]));
    violation(toolSession(), { ...base, data: { ...(base.data as object), ...change } }, 'data');
  });
});

describe('the leading system prompt', () => {
  it('is replaced by a system/message covering exactly that node', () => {
    const session = toolSession();
    session.append(drafts.system('be verbose', replace(0, 0, [0])));
    expect(session.deriveMessages()[0]).toEqual({ role: 'system', content: 'be verbose' });
  });

  it('may not be replaced by another type', () => {
    violation(toolSession(), drafts.user('x', replace(0, 0, [0])), 'surfaceOp');
  });

  it('may not be replaced together with the nodes after it', () => {
    violation(toolSession(), drafts.system('x', replace(0, 2, [0, 2])), 'surfaceOp');
  });

  it('does not restrict ranges that start after it or a leading node of another type', () => {
    const leadingUser = sessionOf(drafts.user('a'), drafts.system('mid'), drafts.user('b'));
    leadingUser.append(drafts.assistant('summary', replace(0, 2, [0, 1, 2])));
    expect(leadingUser.deriveMessages()).toEqual([{ role: 'assistant', content: 'summary' }]);
  });
});

describe('replay has no surfaceOp default', () => {
  it('rejects a stored surface event without surfaceOp as INVALID_LOG caused by SURFACE_VIOLATION', () => {
    const stored = reparsed(sessionOf(drafts.turnStart(), drafts.user('x')).events);
    delete (stored[1] as { surfaceOp?: unknown }).surfaceOp;
    const error = caught(() => Session.fromLog(stored));
    expect([error.code, error.seq, (error.cause as { code?: string }).code]).toEqual([
      'INVALID_LOG',
      1,
      'SURFACE_VIOLATION',
    ]);
  });
});

describe('large replacements', () => {
  it('replaces a long range listed in a long sourceEventSeqs, and still finds a missing node', () => {
    const session = sessionOf(...Array.from({ length: 200 }, (_, index) => drafts.user(`m${index}`)));
    const all = Array.from({ length: 200 }, (_, index) => index);
    violation(
      session,
      drafts.assistant(
        'summary',
        replace(
          0,
          199,
          all.filter((seq) => seq !== 150),
        ),
      ),
      'sourceEventSeqs',
    );
    session.append(drafts.assistant('summary', replace(0, 199, all)));
    expect(session.deriveMessages()).toEqual([{ role: 'assistant', content: 'summary' }]);
  });
});
