import { describe, expect, it } from 'vitest';
import { spawnChild, untilExit } from './children/run-child.ts';
import { HeldStore, startNode, useMemoryHubClient } from './hubs.ts';

describe('a failed AgentWriter never leaves a promise unhandled', () => {
  const hub = useMemoryHubClient({ limits: { maxEventBytes: 1024 } });

  it.each([
    ['seq-conflict', 'SEQ_CONFLICT'],
    ['too-large', 'EVENT_TOO_LARGE'],
  ])(
    'after %s every public method rejects with that failure, under --unhandled-rejections=strict',
    async (failure, code) => {
      // An unhandled rejection makes the child exit with 1 and print it on stderr.
      const { child } = spawnChild('failed-writer.ts', [hub.node.wsUrl, `failed-writer/${failure}`, failure], {
        flags: ['--unhandled-rejections=strict'],
        exitExpected: true,
      });
      const run = await untilExit(child);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const { cause, results } = JSON.parse(run.stdout) as { cause: string; results: Record<string, string> };
      expect(cause).toBe(code);
      expect(Object.keys(results)).toHaveLength(16);
      for (const [method, result] of Object.entries(results)) expect([method, result]).toEqual([method, code]);
    },
  );

  it('after a TIMEOUT (the hub never acks) every public method rejects with it, under --unhandled-rejections=strict', async () => {
    const store = new HeldStore();
    const node = await startNode(store);
    try {
      const { child } = spawnChild('failed-writer.ts', [node.wsUrl, 'failed-writer/timeout', 'timeout'], {
        flags: ['--unhandled-rejections=strict'],
        exitExpected: true,
      });
      const run = await untilExit(child);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const { cause, results } = JSON.parse(run.stdout) as { cause: string; results: Record<string, string> };
      expect(cause).toBe('TIMEOUT');
      expect(Object.keys(results)).toHaveLength(16);
      for (const [method, result] of Object.entries(results)) expect([method, result]).toEqual([method, 'TIMEOUT']);
    } finally {
      store.release();
      await node.hub.close();
      await store.close();
    }
  });
});
