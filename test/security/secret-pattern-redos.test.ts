// `--secret-pattern` shapes that the static check lets through but that backtrack catastrophically on a RegExp:
// a quantified group inside a group (`((a+))+b`), an alternation inside a group (`((a|a))*c`), stacked unbounded
// quantifiers (`\s*\s*…x`). A user pattern now runs on RE2 (linear time), so one event of hostile text is
// scanned and answered, and the node keeps serving; before, `((a+))+b` over 40 "a"s held the event loop for hours.
// The patterns still work: a matching text is redacted.
import { describe, expect } from 'vitest';
import { REDACTED_TEXT } from '../../shared/redaction.ts';
import { SecretScanner, secretPatternProblem } from '../../shared/secret-scan.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { test } from '../helpers/fixtures.ts';
import { startHub } from '../helpers/hub.ts';

const HOSTILE: readonly { readonly pattern: string; readonly text: string; readonly secret: string }[] = [
  { pattern: '((a+))+b', text: `${'a'.repeat(40)}!`, secret: 'aaab' },
  { pattern: String.raw`\s*\s*\s*\s*\s*\s*\s*\s*x`, text: `${' '.repeat(4000)}!`, secret: '  x' },
  { pattern: '((a|a))*c', text: `${'a'.repeat(40)}!`, secret: 'aac' },
];

describe('user secret patterns that the shape check accepts', () => {
  test.each(HOSTILE)('$pattern: accepted, scans hostile text, still redacts a match', ({ pattern, text, secret }) => {
    expect(secretPatternProblem(pattern)).toBeUndefined();
    const scanner = new SecretScanner({ mode: 'redact', patterns: [pattern] });
    expect(scanner.scan([{ type: 'message/user', data: { text } }])?.names ?? []).not.toContain('user-1');
    const found = scanner.scan([{ type: 'message/user', data: { text: `before ${secret} after` } }]);
    expect(found?.names).toEqual(['user-1']);
    expect(JSON.stringify(found?.events[0]?.data)).toContain(REDACTED_TEXT);
    expect(JSON.stringify(found?.events[0]?.data)).not.toContain(secret);
  });

  test('a hub with every such pattern answers an append of hostile text, then serves', async () => {
    const patterns = HOSTILE.map((entry) => entry.pattern);
    const store = new MemoryStore();
    const hub = await startHub({ store, secrets: { mode: 'redact', patterns } });
    try {
      const events = [{ type: 'app/note', data: { texts: HOSTILE.map((entry) => entry.text) } }];
      const append = await fetch(`${hub.url}/v1/sessions/redos%2F1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      expect(append.status).toBe(201);
      const head = await fetch(`${hub.url}/v1/sessions/redos%2F1`);
      expect(((await head.json()) as { headSeq: number }).headSeq).toBe(0);
    } finally {
      await hub.close();
      await store.close();
    }
  });

  test('a pattern RE2 cannot run (lookahead) is refused with its reason', () => {
    expect(secretPatternProblem('key(?=[0-9])')).toMatch(/RE2/);
    expect(() => new SecretScanner({ mode: 'reject', patterns: ['key(?=[0-9])'] })).toThrow(/RE2/);
  });
});
