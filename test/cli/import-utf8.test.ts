import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { runCliHere } from './run-cli.ts';

const lines = [
  '{"seq":0,"type":"turn/start","time":2,"data":{"turn":1}}',
  '{"seq":1,"type":"user/message","time":2,"data":{"role":"user","content":"héllo"},"surfaceOp":"append"}',
];

/** The file's bytes with line 3 holding `bad` inside a JSON string (a truncated é, a lone surrogate's bytes, …). */
function fileWith(bad: readonly number[]): Buffer {
  const before = Buffer.from(`${lines.join('\n')}\n{"seq":2,"type":"test/note","time":3,"data":{"text":"`);
  return Buffer.concat([before, Buffer.from(bad), Buffer.from('"}}\n')]);
}

describe('session-hub import refuses invalid UTF-8 with its line number, and sends nothing', () => {
  let store: MemoryStore;
  let hub: TestHub;
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-utf8-'));

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store });
  });

  afterAll(async () => {
    await hub?.close();
    await store?.close();
  });

  it.each([
    ['a truncated two-byte sequence', [0xc3, 0x28]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a lone continuation byte', [0x80]],
  ])('%s: exit 1, "line 3: not valid UTF-8", the session untouched (file and stdin)', async (_, bad) => {
    const file = join(dir, `bad-${bad.join('-')}.jsonl`);
    writeFileSync(file, fileWith(bad));
    const sessionId = `utf8-${bad.join('-')}`;
    const fromFile = await runCliHere(['import', file, '--session', sessionId, '--url', hub.url]);
    expect(fromFile).toMatchObject({ code: 1, stderr: 'session-hub: line 3: not valid UTF-8\n' });
    const fromStdin = await runCliHere(['import', '-', '--session', sessionId, '--url', hub.url], {}, fileWith(bad));
    expect(fromStdin).toMatchObject({ code: 1, stderr: 'session-hub: line 3: not valid UTF-8\n' });
    expect(await store.read(sessionId, 0, 10)).toEqual([]);
  });

  it('valid UTF-8 (two- to four-byte characters) is imported as it is', async () => {
    const file = join(dir, 'good.jsonl');
    writeFileSync(file, fileWith([...Buffer.from('ünï ✓ 𝄞')]));
    const imported = await runCliHere(['import', file, '--session', 'utf8-good', '--url', hub.url]);
    expect(imported).toMatchObject({ code: 0, stderr: 'imported 3 events into utf8-good\n' });
    const [, , note] = await store.read('utf8-good', 0, 10);
    expect(note?.data).toEqual({ text: 'ünï ✓ 𝄞' });
  });
});
