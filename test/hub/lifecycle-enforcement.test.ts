import { afterAll, describe, expect } from 'vitest';
import { validateLifecycle, type EventDraft } from '../../shared/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test, type EngineHubFixture } from '../helpers/fixtures.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

const user = (content: string): EventDraft => ({ type: 'user/message', data: { role: 'user', content } });
const turnStart = (turn: number): EventDraft => ({ type: 'turn/start', data: { turn } });
const stepStart = (turn: number, step: number): EventDraft => ({ type: 'step/start', data: { turn, step } });
const stepEnd = (turn: number, step: number): EventDraft => ({ type: 'step/end', data: { turn, step } });
const call = (callId: string, turn = 1, step = 1): EventDraft => ({
  type: 'tool/call',
  data: { turn, step, callId, name: 'bash', arguments: '{}' },
});
const result = (callId: string, turn = 1, step = 1): EventDraft => ({
  type: 'tool/result',
  data: { turn, step, message: { role: 'tool', toolCallId: callId, toolName: 'bash', content: 'ok', isError: false } },
});

interface Reply {
  status: number;
  body: { firstSeq?: number; error?: { code: string; details?: Record<string, unknown> } };
}

async function post(hub: TestHub, sessionId: string, events: readonly EventDraft[]): Promise<Reply> {
  const response = await fetch(`${hub.url}/v1/sessions/${sessionId}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
  return { status: response.status, body: (await response.json()) as Reply['body'] };
}

const engines = storeEngines('lifecycle:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));

describe.each(engines)('hub: the lifecycle is enforced on every append ($name)', ({ it }) => {
  let engine: EngineHubFixture;
  let hub: TestHub;
  // A second node on the same store, started here: the fixtures give one node per engine.
  let lenient: TestHub;
  let socket: RawHubClient;
  it.beforeAll(async ({ engineHub }) => {
    engine = engineHub;
    hub = engineHub.hub;
    lenient = await startHub({ store: engine.store, lifecycle: 'off' });
    socket = await RawHubClient.connect(hub.wsUrl);
  });
  afterAll(async () => {
    await socket.close();
    await lenient.close();
  });

  it('refuses a tool result outside any turn over HTTP (LIFECYCLE_VIOLATION, rule and seq), storing nothing', async () => {
    expect((await post(hub, 'ghost-http', [user('hi')])).status).toBe(201);
    const ghost = await post(hub, 'ghost-http', [result('ghost')]);
    expect(ghost).toMatchObject({
      status: 400,
      body: { error: { code: 'LIFECYCLE_VIOLATION', details: { rule: 'EVENT_OUTSIDE_STEP', seq: 1 } } },
    });
    expect(await engine.store.read('ghost-http', 0, 10)).toHaveLength(1);
  });

  it('refuses the same over WebSocket, and a result inside a step that answers no call', async () => {
    const outside = await socket.request({ type: 'append', sessionId: 'ghost-ws', events: [result('ghost')] });
    expect(outside).toMatchObject({
      type: 'error',
      code: 'LIFECYCLE_VIOLATION',
      details: { rule: 'EVENT_OUTSIDE_STEP', seq: 0 },
    });
    const opened = await socket.request({
      type: 'append',
      sessionId: 'ghost-ws',
      events: [turnStart(1), stepStart(1, 1)],
    });
    expect(opened).toMatchObject({ type: 'ack', firstSeq: 0 });
    const inside = await socket.request({ type: 'append', sessionId: 'ghost-ws', events: [result('ghost')] });
    expect(inside).toMatchObject({
      type: 'error',
      code: 'LIFECYCLE_VIOLATION',
      details: { rule: 'RESULT_WITHOUT_CALL', seq: 2 },
    });
    expect(await engine.store.read('ghost-ws', 0, 10)).toHaveLength(2);
  });

  it('accepts a valid prefix with an open last turn, and refuses a whole batch whose middle breaks a rule', async () => {
    const run = [user('q'), turnStart(1), stepStart(1, 1), call('c1'), result('c1'), stepEnd(1, 1)];
    expect(await post(hub, 'run', run)).toMatchObject({ status: 201, body: { firstSeq: 0 } });
    // A second turn while turn 1 is open, behind a valid step/start: nothing of the batch is written.
    const broken = await post(hub, 'run', [stepStart(1, 2), turnStart(2)]);
    expect(broken).toMatchObject({
      status: 400,
      body: { error: { code: 'LIFECYCLE_VIOLATION', details: { rule: 'TURN_ALREADY_OPEN', seq: 7 } } },
    });
    const step2 = await socket.request({
      type: 'append',
      sessionId: 'run',
      events: [stepStart(1, 2), call('c2', 1, 2)],
    });
    expect(step2).toMatchObject({ type: 'ack', firstSeq: 6, lastSeq: 7 });
    const unanswered = await post(hub, 'run', [
      stepEnd(1, 2),
      { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
    ]);
    expect(unanswered).toMatchObject({
      status: 400,
      body: { error: { code: 'LIFECYCLE_VIOLATION', details: { rule: 'CALL_UNANSWERED' } } },
    });
    const stored = await engine.store.read('run', 0, 100);
    expect(stored).toHaveLength(8);
    expect(validateLifecycle(stored)).toEqual([]);
  });

  it('with lifecycle off stores what the rules refuse; an enforcing node still takes valid appends after it', async () => {
    expect((await post(lenient, 'legacy', [result('ghost')])).status).toBe(201);
    expect(await post(hub, 'legacy', [user('next')])).toMatchObject({ status: 201, body: { firstSeq: 1 } });
    expect((await post(hub, 'legacy', [result('ghost-again')])).body.error?.code).toBe('LIFECYCLE_VIOLATION');
  });
});
