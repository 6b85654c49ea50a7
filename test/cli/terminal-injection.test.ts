import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonl } from '../../shared/index.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { terminalLine, terminalText } from '../../server/cli/terminal-text.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { runCliHere } from './run-cli.ts';

/** What a hostile event or hub would make a terminal do: set its title, fill the clipboard, clear the screen. */
const OSC_TITLE = '\u001b]0;pwned\u0007';
const OSC_CLIPBOARD = '\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007';
const CLEAR_SCREEN = '\u001b[2J\u001b[H';
const C1_CSI = '\u009b31m';
const BIDI_OVERRIDE = '\u202e';
const hostile = `${OSC_TITLE}${OSC_CLIPBOARD}${CLEAR_SCREEN}${C1_CSI}${BIDI_OVERRIDE}\rdone`;

/** Any character a terminal would act on (tab and newline aside). */
// eslint-disable-next-line no-control-regex -- looking for control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('session-hub prints no control character it did not write itself (terminal injection)', () => {
  let store: MemoryStore;
  let hub: TestHub;
  let liar: Server;
  let liarUrl: string;

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store });
    const response = await fetch(`${hub.url}/v1/sessions/evil/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        events: [
          { type: 'turn/start', data: { turn: 1 } },
          { type: 'user/message', data: { role: 'user', content: hostile }, sourceEventSeqs: [0] },
          { type: 'test/note', data: { note: hostile } },
        ],
      }),
    });
    expect(response.status).toBe(201);
    // A hostile hub: session x answers errors whose message is an escape sequence; its one session's id is one.
    liar = createServer((request, reply) => {
      const json = (body: object): void => {
        reply.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const url = request.url ?? '';
      if (url.startsWith('/v1/sessions?')) {
        const row = { id: hostile, tier: 'hot', headSeq: 0, bytes: 1, title: hostile, labels: { k: hostile } };
        return json({ sessions: [row] });
      }
      if (url.endsWith('/presence')) return json({ watchers: [] });
      if (!url.startsWith('/v1/sessions/x')) return json({ sessionId: hostile, epoch: 'e', headSeq: 0 });
      reply
        .writeHead(403, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'FORBIDDEN', message: `${hostile}\nsession-hub: all good` } }));
    });
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
    liarUrl = `http://127.0.0.1:${(liar.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    if (liar !== undefined) await new Promise((resolve) => liar.close(resolve));
    await hub?.close();
    await store?.close();
  });

  it('tail shows an event’s escape sequences as visible text, in lines and --messages', async () => {
    const lines = await runCliHere(['tail', 'evil', '--url', hub.url]);
    expect(lines.code).toBe(0);
    expect(lines.stdout).not.toMatch(CONTROLS);
    expect(lines.stdout).toContain('\\x1b]0;pwned\\x07');
    expect(lines.stdout).toContain('\\x9b31m\\u202e');
    expect(lines.stdout.split('\n')).toHaveLength(4);
    const transcript = await runCliHere(['tail', 'evil', '--messages', '--url', hub.url]);
    expect(transcript.stdout).toBe(`user: ${terminalText(hostile)}\n`);
    expect(transcript.stdout).not.toMatch(CONTROLS);
  });

  it('--json stays exact: the events parse back to what was appended', async () => {
    const json = await runCliHere(['tail', 'evil', '--json', '--url', hub.url]);
    const events = parseJsonl(json.stdout);
    expect(events[1]!.data).toEqual({ role: 'user', content: hostile });
    expect(events[2]!.data).toEqual({ note: hostile });
  });

  it('a hostile hub’s error text and session ids reach stderr and stdout escaped, on one line', async () => {
    for (const args of [
      ['export', 'x'],
      ['rm', 'x', '--yes'],
      ['erase', 'x', '--reason', 'r', '--yes'],
      ['import', '-', '--session', 'x'],
    ]) {
      const failed = await runCliHere([...args, '--url', liarUrl], {}, '');
      expect(failed.code, args[0]).toBe(1);
      expect(failed.stderr).toBe(`session-hub: FORBIDDEN: ${terminalLine(`${hostile}\nsession-hub: all good`)}\n`);
      expect(failed.stderr).not.toMatch(CONTROLS);
    }
    // A subject erasure answered with a body of another shape: one line, exit 1, nothing printed from it.
    const erased = await runCliHere(['erase', '--label', 'k=v', '--dry-run', '--url', liarUrl]);
    expect(erased).toMatchObject({ code: 1, stdout: '' });
    expect(erased.stderr).toBe('session-hub: the hub answered a subject erasure with an unexpected body\n');
    const listed = await runCliHere(['sessions', '--url', liarUrl]);
    expect(listed.stdout).not.toMatch(CONTROLS);
    expect(listed.stdout).toContain(terminalLine(hostile));
    expect(listed.stdout).toContain(terminalLine(`k=${hostile}`));
    const json = await runCliHere(['sessions', '--json', '--url', liarUrl]);
    expect(json.stdout).toContain(JSON.stringify(hostile).slice(1, -1));
  });
});
