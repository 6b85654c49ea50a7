import { describe, expect } from 'vitest';
import { test } from '../helpers/fixtures.ts';
import { runCliHere } from './run-cli.ts';

const it = test;

describe('session-hub fork', () => {
  it('forks at a boundary, refuses inside a turn (exit 1) unless --repair, needs --at (exit 2)', async ({
    memoryHub,
  }) => {
    const url = memoryHub.hub.url;
    const events = [
      { type: 'user/message', data: { role: 'user', content: 'hi' } },
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
    ];
    const created = await fetch(`${url}/v1/sessions/${encodeURIComponent('acme/cli')}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    });
    expect(created.status).toBe(201);
    const made = await runCliHere(['fork', 'acme/cli', '--at', '0', '--new-id', 'acme/cli-0', '--url', url]);
    expect(made).toMatchObject({ code: 0, stdout: 'acme/cli-0\n' });
    expect(made.stderr).toBe('forked acme/cli at seq 0 into acme/cli-0\n');
    const again = await runCliHere(['fork', 'acme/cli', '--at', '0', '--new-id', 'acme/cli-0', '--url', url]);
    expect(again).toMatchObject({ code: 0, stdout: 'acme/cli-0\n' });
    expect(again.stderr).toMatch(/the same fork/);

    const inside = await runCliHere(['fork', 'acme/cli', '--at', '2', '--url', url]);
    expect(inside.code).toBe(1);
    expect(inside.stderr).toMatch(/FORK_INSIDE_TURN/);
    const repaired = await runCliHere(['fork', 'acme/cli', '--at', '2', '--repair', '--json', '--url', url]);
    expect(repaired.code).toBe(0);
    const reply = JSON.parse(repaired.stdout) as { sessionId: string; repaired: number; headSeq: number };
    expect(reply).toMatchObject({ parent: 'acme/cli', forkSeq: 2, depth: 1, repaired: 2, headSeq: 4 });
    expect(reply.sessionId).toMatch(/^acme\/fork-/);

    expect((await runCliHere(['fork', 'acme/cli', '--url', url])).code).toBe(2);
    expect((await runCliHere(['fork', 'acme/cli', '--at', 'x', '--url', url])).code).toBe(2);
    // The parent now has forks: rm refuses it.
    const rm = await runCliHere(['rm', 'acme/cli', '--yes', '--url', url]);
    expect(rm.code).toBe(1);
    expect(rm.stderr).toMatch(/HAS_FORKS/);
  });
});
