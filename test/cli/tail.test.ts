import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { parseJsonl, toJsonl, type SessionEvent } from '../../shared/index.ts';
import { test as it } from '../helpers/fixtures.ts';
import { freePort } from '../helpers/free-port.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import { runCliHere, startCli, type CliProcess } from './run-cli.ts';

async function append(hub: HubProcess, sessionId: string, count: number): Promise<void> {
  const events = Array.from({ length: count }, (_, index) => ({ type: 'test/tick', data: { index } }));
  const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
  expect(response.status).toBe(201);
}

function printedSeqs(tail: CliProcess): number[] {
  return tail.output.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as SessionEvent).seq);
}

const untilPrinted = (tail: CliProcess, count: number) =>
  expect.poll(() => printedSeqs(tail).length, { timeout: 30_000, interval: 25 }).toBeGreaterThanOrEqual(count);

describe('session-hub tail --follow across a hub restart (Redis engine)', { timeout: 90_000 }, () => {
  // A child process: the test kills it and starts another on the same port.
  let hub: HubProcess | undefined;
  afterAll(async () => {
    await hub?.terminate();
  });

  it('prints the events appended after it started, before and after the restart, each seq once', async ({ redis }) => {
    const port = String(await freePort());
    const args = ['--port', port, '--redis', redis.url];
    hub = await HubProcess.start(args);
    await append(hub, 'run', 3);
    const tail = startCli(['tail', 'run', '--follow', '--json', '--url', hub.url]);
    await untilPrinted(tail, 3);
    await append(hub, 'run', 2);
    await untilPrinted(tail, 5);

    await hub.kill();
    hub = await HubProcess.start(args);
    await append(hub, 'run', 2);
    await untilPrinted(tail, 7);
    await expect.poll(() => tail.output.stderr, { timeout: 30_000 }).toMatch(/reconnected to /);

    tail.child.kill('SIGINT');
    expect((await tail.done).code).toBe(0);
    expect(printedSeqs(tail)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(tail.output.stderr).toMatch(/^connection to ws:\/\/127\.0\.0\.1:\d+\/v1\/ws lost.*; reconnecting…\n/);
  });
});

describe('session-hub tail (memory engine)', { timeout: 60_000 }, () => {
  let hub: HubProcess;
  const seed = readFileSync(new URL('../fixtures/seed-example.jsonl', import.meta.url), 'utf8');
  beforeAll(async () => {
    hub = await HubProcess.start([]);
    const imported = await runCliHere(['import', '-', '--session', 'seed', '--url', hub.url], {}, seed);
    expect(imported.code).toBe(0);
  });
  afterAll(() => hub?.terminate());

  it('without --follow prints the log up to the head and exits 0; --json lines are the exported JSONL', async () => {
    const json = await runCliHere(['tail', 'seed', '--json', '--url', hub.url]);
    expect(json).toMatchObject({ code: 0, stdout: toJsonl(parseJsonl(seed)) });
    const fromEight = await runCliHere(['tail', 'seed', '--json', '--from', '8', '--url', hub.url]);
    expect(fromEight.stdout).toBe(toJsonl(parseJsonl(seed).slice(8)));
    const lines = await runCliHere(['tail', 'seed', '--url', hub.url]);
    expect(lines.stdout.split('\n').slice(0, 3)).toEqual([
      '0  2025-08-12T12:00:00.000Z  turn/start  turn 1',
      '1  2025-08-12T12:00:00.010Z  step/start  turn 1 step 1',
      '2  2025-08-12T12:00:00.020Z  user/message  Fix the typo in the runoob README.',
    ]);
  });

  it('--messages prints the derived messages as a transcript', async () => {
    const transcript = await runCliHere(['tail', 'seed', '--messages', '--url', hub.url]);
    expect(transcript).toMatchObject({
      code: 0,
      stdout:
        'user: Fix the typo in the runoob README.\n' +
        `assistant: I'll search [bash({"command":"grep runoob README.md"})]\n` +
        'tool bash: runoob\n',
    });
  });

  it('--messages --follow shows assistant text as its chunks stream, then the final message', async () => {
    const post = async (events: readonly object[]) => {
      const response = await fetch(`${hub.url}/v1/sessions/live/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      expect(response.status).toBe(201);
    };
    await post([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'user/message', data: { role: 'user', content: 'hi' }, sourceEventSeqs: [0] },
      { type: 'step/start', data: { turn: 1, step: 1 } },
    ]);
    const tail = startCli(['tail', 'live', '--messages', '--follow', '--url', hub.url]);
    await expect.poll(() => tail.output.stdout, { timeout: 30_000 }).toBe('user: hi\n');
    const chunk = (text: string) => ({
      type: 'assistant/chunk',
      data: { turn: 1, step: 1, chunk: { type: 'text-delta', text } },
    });
    await post([chunk('Hel')]);
    await expect.poll(() => tail.output.stdout, { timeout: 30_000 }).toBe('user: hi\nassistant ▸ Hel');
    await post([chunk('lo')]);
    await expect.poll(() => tail.output.stdout, { timeout: 30_000 }).toBe('user: hi\nassistant ▸ Hello');
    const message = { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] };
    await post([{ type: 'assistant/message', data: { turn: 1, step: 1, message }, sourceEventSeqs: [3, 4] }]);
    await expect
      .poll(() => tail.output.stdout, { timeout: 30_000 })
      .toBe('user: hi\nassistant ▸ Hello\nassistant: Hello\n');
    tail.child.kill('SIGINT');
    expect((await tail.done).code).toBe(0);
  });

  it('a following tail counts as a watcher in session-hub sessions', async () => {
    const tail = startCli(['tail', 'seed', '--follow', '--url', hub.url]);
    await expect.poll(() => tail.output.stdout.split('\n').length, { timeout: 30_000 }).toBeGreaterThan(10);
    const seedRow = async (): Promise<unknown> => {
      const lines = (await runCliHere(['sessions', '--json', '--url', hub.url])).stdout.split('\n');
      const line = lines.find((text) => text.startsWith('{"sessionId":"seed"'));
      return line === undefined ? undefined : (JSON.parse(line) as unknown);
    };
    await expect
      .poll(seedRow, { timeout: 30_000 })
      .toMatchObject({ sessionId: 'seed', tier: 'hot', headSeq: 9, events: 10, watchers: 1 });
    tail.child.kill('SIGTERM');
    expect((await tail.done).code).toBe(0);
    const table = await runCliHere(['sessions', '--url', hub.url]);
    expect(table.stdout).toMatch(
      /^SESSION {2}HEAD {2}EVENTS {2}LAST ACTIVITY \(UTC\) {2}WATCHERS {2}TITLE {2}LABELS\nlive +5 +6 +\S+ +[01] +- *\nseed +9 +10 +\S+ +[01] +- *\n$/,
    );
  });

  it('fails in one line when the hub cannot be reached', async () => {
    const unreachable = await runCliHere(['tail', 'seed', '--url', `http://127.0.0.1:${await freePort()}`]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^session-hub: cannot reach the hub at ws:\/\/127\.0\.0\.1:\d+\/v1\/ws \(CONNECT_FAILED: [^;\n]*ECONNREFUSED[^;\n]*\)\n$/,
    );
  });
});
