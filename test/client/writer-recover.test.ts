import { describe, expect, it } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import { repairInterrupted, validateLifecycle } from '../../shared/index.ts';
import { storeEngines } from '../helpers/engines.ts';
import { spawnChild, untilExit, untilPrinted } from './children/run-child.ts';
import { useEngineHub } from './engine-hub.ts';

describe.each(storeEngines('recover:'))('AgentWriter.recover() on the $name engine', ({ open }) => {
  const engine = useEngineHub(open);

  /** A writer in a child process writes up to two unanswered tool calls, then is SIGKILLed. */
  async function crashMidTurn(sessionId: string): Promise<void> {
    const { child, watch } = spawnChild('mid-turn-writer.ts', [engine.hub.wsUrl, sessionId]);
    const exited = untilExit(child);
    await untilPrinted(child, 'ready');
    watch.expectExit();
    child.kill('SIGKILL');
    await exited;
  }

  it('closes the turn a killed writer left open exactly once, though two writers race to recover it', async () => {
    const sessionId = 'recover/race';
    await crashMidTurn(sessionId);
    const before = await engine.store.read(sessionId, 0, 1000);
    expect(validateLifecycle(before)).toEqual([]);
    expect(validateLifecycle(before, { complete: true }).map((violation) => violation.code)).toContain(
      'TURN_NOT_CLOSED',
    );

    const clients = [new HubClient({ url: engine.hub.wsUrl }), new HubClient({ url: engine.hub.wsUrl })];
    try {
      const writers = await Promise.all(clients.map((client) => AgentWriter.attach(client, sessionId)));
      expect(writers.map((writer) => writer.turnOpen)).toEqual([true, true]);
      const [first, second] = await Promise.all(writers.map((writer) => writer.recover()));

      const after = await engine.store.read(sessionId, 0, 1000);
      expect(after).toHaveLength(before.length + repairInterrupted(before).length);
      expect(after.slice(before.length)).toEqual(first);
      expect(second).toEqual(first);
      expect(first!.map(({ type, data }) => ({ type, data }))).toEqual(
        repairInterrupted(before).map(({ type, data }) => ({ type, data })),
      );
      expect(first!.map((event) => event.type)).toEqual(['tool/result', 'tool/result', 'step/end', 'turn/end']);
      expect(first!.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'interrupted' } });
      expect(validateLifecycle(after, { complete: true })).toEqual([]);

      // Each writer carries on after the repair; being two, the second one's next write meets the first's.
      await writers[0]!.startTurn();
      expect(writers[0]!.turn).toBe(2);
      await expect(writers[1]!.startTurn()).rejects.toMatchObject({ code: 'SEQ_CONFLICT' });
    } finally {
      for (const client of clients) client.close();
    }
  });

  it('resolves with [] and appends nothing when the last turn is closed; refuses once the writer wrote', async () => {
    const client = new HubClient({ url: engine.hub.wsUrl });
    try {
      const writer = await AgentWriter.attach(client, 'recover/closed');
      await writer.startTurn();
      await writer.endTurn('completed');
      const attached = await AgentWriter.attach(client, 'recover/closed');
      await expect(attached.recover()).resolves.toEqual([]);
      expect(await engine.store.read('recover/closed', 0, 100)).toHaveLength(2);

      await writer.startTurn();
      const again = await AgentWriter.attach(client, 'recover/closed');
      await again.userMessage('more');
      await expect(again.recover()).rejects.toMatchObject({ code: 'INVALID_STATE' });
    } finally {
      client.close();
    }
  });
});
