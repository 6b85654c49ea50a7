// `session-hub redact` (the real bin) against a hub node.
import { describe, expect } from 'vitest';
import { REDACTED_TEXT } from '../../shared/redaction.ts';
import { test as it } from '../helpers/fixtures.ts';
import { runCli } from '../cli/run-cli.ts';

describe('session-hub redact', () => {
  it('redacts seqs and ranges, prints the answer, and refuses bad flags without calling the hub', async ({
    memoryHub,
  }) => {
    const { store, hub } = memoryHub;
    const sessionId = 'cli/redact';
    const events = Array.from({ length: 5 }, (_, index) => ({
      type: 'user/message',
      data: { role: 'user', content: `secret ${index}` },
      surfaceOp: 'append' as const,
    }));
    expect((await store.commit({ sessionId, expectedSeq: 0, events })).status).toBe('committed');
    const run = (...args: string[]) => runCli(['redact', sessionId, ...args], { SESSION_HUB_URL: hub.url });

    for (const bad of [
      ['--seq', '3-1', '--reason', 'r'],
      ['--seq', '1'],
    ]) {
      const refused = await run(...bad);
      expect(refused.code, bad.join(' ')).toBe(2);
    }
    expect((await store.head(sessionId)).headSeq).toBe(4);

    const done = await run('--seq', '1', '--seq', '3-4', '--reason', 'cleanup');
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ sessionId, seqs: [1, 3, 4], auditSeq: 5 });
    const log = await store.read(sessionId, 0, 10);
    expect(log.map((event) => (event.data as { content?: string }).content)).toEqual([
      'secret 0',
      REDACTED_TEXT,
      'secret 2',
      REDACTED_TEXT,
      REDACTED_TEXT,
      undefined,
    ]);
    const future = await run('--seq', '99', '--reason', 'r');
    expect(future.code).toBe(1);
    expect(future.stderr).toContain('SEQ_OUT_OF_RANGE');
  });
});
