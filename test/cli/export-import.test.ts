import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { deriveMessages, parseJsonl, toJsonl } from '../../shared/index.ts';
import type { HubProcess } from '../helpers/hub-process.ts';
import { hubEngines } from './hub-engines.ts';
import { runCli, runCliHere, startCli } from './run-cli.ts';

const fixture = (name: string): string => fileURLToPathString(`../fixtures/${name}`);
function fileURLToPathString(relative: string): string {
  return new URL(relative, import.meta.url).pathname;
}

const dir = mkdtempSync(join(tmpdir(), 'session-hub-cli-'));

/** Head seq of a session on a hub, over HTTP. */
async function headSeq(hub: HubProcess, sessionId: string): Promise<number> {
  const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}`);
  return ((await response.json()) as { headSeq: number }).headSeq;
}

/** An export without its first line, the metadata header (checked to be one). */
function withoutHeader(text: string): string {
  const [header, ...rest] = text.split('\n');
  expect(JSON.parse(header!)).toMatchObject({ kind: 'session-hub/metadata' });
  return rest.join('\n');
}

async function append(hub: HubProcess, sessionId: string, events: readonly object[]): Promise<void> {
  const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
  expect(response.status).toBe(201);
}

describe.each(hubEngines)('session-hub export / import ($name engine)', { timeout: 90_000 }, ({ it }) => {
  let source: HubProcess;
  let target: HubProcess;
  it.beforeAll(async ({ startHubProcess }) => {
    [source, target] = await Promise.all([startHubProcess(), startHubProcess()]);
  });

  it('imports the seed example keeping its times; its derived messages are the expected ones', async () => {
    const imported = await runCliHere([
      'import',
      fixture('seed-example.jsonl'),
      '--session',
      'seed',
      '--url',
      source.url,
    ]);
    expect(imported).toMatchObject({ code: 0, stderr: 'imported 10 events into seed\n' });
    const exported = await runCliHere(['export', 'seed', '--url', source.url]);
    expect(exported.code).toBe(0);
    expect(withoutHeader(exported.stdout)).toBe(
      toJsonl(parseJsonl(readFileSync(fixture('seed-example.jsonl'), 'utf8'))),
    );
    const expected: unknown = JSON.parse(readFileSync(fixture('seed-example.messages.json'), 'utf8'));
    expect(deriveMessages(parseJsonl(exported.stdout))).toEqual(expected);
  });

  it('export → import into another hub → export gives byte-identical JSONL (hub-stamped times and replaces)', async () => {
    const turn = (n: number) => ({ type: 'turn/start', data: { turn: n } });
    const turnEnd = { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } };
    await append(source, 'acme/run-1', [turn(1)]);
    await append(source, 'acme/run-1', [{ type: 'test/note', data: { text: 'ünïcode ✓', n: 1.5 } }, turnEnd]);
    await append(source, 'acme/run-1', [{ type: 'test/note', data: { nested: { list: [1, null, 'x'] } } }]);
    const titled = await fetch(`${source.url}/v1/sessions/acme%2Frun-1`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Run one ✓', labels: { team: 'red', 'env/stage': 'prod' } }),
    });
    expect(titled.status).toBe(200);
    const replace = await runCliHere([
      'import',
      fixture('replace-and-prune.jsonl'),
      '--session',
      'acme/run-2',
      '--url',
      source.url,
    ]);
    expect(replace.code).toBe(0);
    for (const sessionId of ['acme/run-1', 'acme/run-2']) {
      const file = join(dir, `${sessionId.replace('/', '-')}.jsonl`);
      const first = await runCliHere(['export', sessionId, '-o', file, '--url', source.url]);
      expect(first.code).toBe(0);
      const imported = await runCliHere(['import', file, '--session', sessionId, '--url', target.url]);
      expect(imported.code, imported.stderr).toBe(0);
      const again = await runCliHere(['export', sessionId, '--url', target.url]);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(readFileSync(file, 'utf8'));
      expect(again.stdout.split('\n').length).toBeGreaterThan(3);
    }
    const header = JSON.parse(readFileSync(join(dir, 'acme-run-1.jsonl'), 'utf8').split('\n')[0]!) as object;
    expect(header).toMatchObject({
      kind: 'session-hub/metadata',
      sessionId: 'acme/run-1',
      metadata: { title: 'Run one ✓', labels: { 'env/stage': 'prod', team: 'red' }, createdBy: 'anonymous' },
    });
    const restored = await fetch(`${target.url}/v1/sessions/acme%2Frun-1/metadata`);
    expect(((await restored.json()) as { metadata: object }).metadata).toMatchObject({
      title: 'Run one ✓',
      labels: { 'env/stage': 'prod', team: 'red' },
    });
  });

  // A waiting budget, not a timing: on a loaded 2-core machine the child needs about 20 s to commit its first append.
  it('an import killed halfway and run again ends with exactly the file’s events', { timeout: 180_000 }, async () => {
    const events = Array.from({ length: 6000 }, (_, seq) => ({
      seq,
      type: 'test/tick',
      time: 1_700_000_000_000 + Math.floor(seq / 50),
      data: { seq, text: 'x'.repeat(40) },
    }));
    const file = join(dir, 'ticks.jsonl');
    writeFileSync(file, toJsonl(parseJsonl(events.map((event) => JSON.stringify(event)).join('\n'))));
    const run = startCli(['import', file, '--session', 'ticks', '--url', target.url]);
    await expect.poll(() => headSeq(target, 'ticks'), { timeout: 90_000, interval: 20 }).toBeGreaterThanOrEqual(0);
    run.child.kill('SIGKILL');
    expect((await run.done).code).toBe(null);
    const partial = await headSeq(target, 'ticks');
    expect(partial).toBeLessThan(events.length - 1);

    const rerun = await runCli(['import', file, '--session', 'ticks', '--url', target.url]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toBe(
      `imported ${events.length - partial - 1} events into ticks (${partial + 1} were already there)\n`,
    );
    const exported = await runCliHere(['export', 'ticks', '--url', target.url]);
    expect(withoutHeader(exported.stdout)).toBe(readFileSync(file, 'utf8'));
  });

  it.each([
    [
      'a bad surface range',
      3,
      '{"seq":2,"type":"user/message","time":3,"data":{"role":"user","content":"x"},"surfaceOp":{"op":"replace","startSeq":7,"endSeq":9}}',
    ],
    ['a line that is not JSON', 3, '{"seq":2,"type":"turn/start",'],
    ['a wrong seq', 3, '{"seq":5,"type":"turn/start","time":3,"data":{"turn":2}}'],
    ['a time that goes back', 3, '{"seq":2,"type":"turn/start","time":1,"data":{"turn":2}}'],
    ['a second turn inside the first (lifecycle)', 3, '{"seq":2,"type":"turn/start","time":3,"data":{"turn":2}}'],
  ])('refuses a file with %s: exit 1, the line number, nothing written', async (_, line, text) => {
    const good = [
      '{"seq":0,"type":"turn/start","time":2,"data":{"turn":1}}',
      '{"seq":1,"type":"user/message","time":2,"data":{"role":"user","content":"hi"},"surfaceOp":"append"}',
    ];
    const sessionId = `bad-${line}-${text.length}`;
    // Through the bin once (exit code of a real process), in this process for the other cases.
    const run = line === 3 && text.startsWith('{"seq":5') ? runCli : runCliHere;
    const result = await run(
      ['import', '-', '--session', sessionId, '--url', target.url],
      {},
      [...good, text, '{"seq":3,"type":"test/note","time":4,"data":{}}'].join('\n'),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^session-hub: line ${line}: `));
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(await headSeq(target, sessionId)).toBe(-1);
  });

  it('refuses a target that holds other events unless the file continues it with --append', async () => {
    await append(target, 'busy', [{ type: 'turn/start', data: { turn: 1 } }]);
    const refused = await runCliHere([
      'import',
      fixture('seed-example.jsonl'),
      '--session',
      'busy',
      '--url',
      target.url,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^session-hub: the target already holds 1 events/);
    const next = '{"seq":1,"type":"turn/end","time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}\n';
    const withoutAppend = await runCliHere(['import', '-', '--session', 'busy', '--url', target.url], {}, next);
    expect(withoutAppend.code).toBe(1);
    expect(await headSeq(target, 'busy')).toBe(0);
    // The file's time (1) is before the target's hub-stamped first event: refused before anything is sent.
    const early = await runCliHere(['import', '-', '--session', 'busy', '--append', '--url', target.url], {}, next);
    expect(early).toMatchObject({ code: 1 });
    expect(early.stderr).toMatch(/^session-hub: line 1: time 1 is before the previous event's time/);
    const later = next.replace('"time":1', `"time":${Date.now()}`);
    const appended = await runCliHere(['import', '-', '--session', 'busy', '--append', '--url', target.url], {}, later);
    expect(appended).toMatchObject({ code: 0, stderr: 'imported 1 events into busy\n' });
    expect(await headSeq(target, 'busy')).toBe(1);
  });

  it('usage errors exit 2 and name the problem', async () => {
    for (const args of [['import', 'file.jsonl'], ['export'], ['import', '--bogus'], ['tail', 'x', '--from', '-1']]) {
      const result = await (args[0] === 'tail' ? runCli : runCliHere)([...args, '--url', target.url]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^session-hub: [^]+\n\nUsage: session-hub /);
    }
  });
});
