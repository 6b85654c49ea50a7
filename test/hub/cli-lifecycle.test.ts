import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubProcess } from '../helpers/hub-process.ts';

const ghost = {
  type: 'tool/result',
  data: {
    turn: 1,
    step: 1,
    message: { role: 'tool', toolCallId: 'ghost', toolName: 'bash', content: 'x', isError: false },
  },
};

async function postGhost(node: HubProcess): Promise<{ status: number; code: unknown }> {
  const response = await fetch(`${node.url}/v1/sessions/ghost/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events: [ghost] }),
  });
  const body = (await response.json()) as { error?: { code?: unknown } };
  return { status: response.status, code: body.error?.code };
}

/** The lifecycle check through the real CLI: on by default, `--lifecycle off` (or SESSION_HUB_LIFECYCLE=off) turns it off. */
describe('session-hub serve --lifecycle', () => {
  const nodes: HubProcess[] = [];
  let enforcing: HubProcess;
  let flagOff: HubProcess;
  let envOff: HubProcess;
  beforeAll(async () => {
    [enforcing, flagOff, envOff] = await Promise.all([
      HubProcess.start([]),
      HubProcess.start(['--lifecycle', 'off']),
      HubProcess.start([], { SESSION_HUB_LIFECYCLE: 'off' }),
    ]);
    nodes.push(enforcing, flagOff, envOff);
  });
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.terminate()));
  });

  it('refuses a ghost tool result by default, and stores it with the check off', async () => {
    expect(await postGhost(enforcing)).toEqual({ status: 400, code: 'LIFECYCLE_VIOLATION' });
    expect(await postGhost(flagOff)).toEqual({ status: 201, code: undefined });
    expect(await postGhost(envOff)).toEqual({ status: 201, code: undefined });
  });
});
