import { describe, expect, it } from 'vitest';
import { CloseCode } from '../../shared/protocol.ts';
import type { GroupCommitRequest, GroupCommitResult } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import { startHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/** A real MemoryStore whose commits wait at a gate the test opens (to hold an append in flight). */
class GatedStore extends MemoryStore {
  open!: () => void;
  readonly #gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  reached!: () => void;
  readonly waiting = new Promise<void>((resolve) => {
    this.reached = resolve;
  });

  override async commitGroup(request: GroupCommitRequest): Promise<GroupCommitResult> {
    this.reached();
    await this.#gate;
    return super.commitGroup(request);
  }
}

describe('hub: graceful shutdown', () => {
  it('finishes the in-flight append, refuses new ones, then closes sockets with 1001 GOING_AWAY', async () => {
    const store = new GatedStore();
    const hub = await startHub({ store });
    const writer = await RawHubClient.connect(hub.wsUrl);
    const watcher = await RawHubClient.connect(hub.wsUrl);
    await watcher.request({ type: 'subscribe', sessionId: 's' });
    const inFlight = writer.request({ type: 'append', sessionId: 's', events: [{ type: 'x/y', data: 1 }] });
    await store.waiting;
    const closing = hub.close();
    const ready = await fetch(`${hub.url}/readyz`).catch(() => undefined);
    if (ready !== undefined) expect(ready.status).toBe(503);
    const refused = await writer.request({ type: 'append', sessionId: 's', events: [{ type: 'x/y', data: 2 }] });
    expect(refused).toMatchObject({ type: 'error', code: 'SHUTTING_DOWN' });
    store.open();
    expect(await inFlight).toMatchObject({ type: 'ack', firstSeq: 0 });
    await closing;
    expect((await writer.closed).code).toBe(CloseCode.GOING_AWAY);
    expect((await watcher.closed).code).toBe(CloseCode.GOING_AWAY);
    expect(watcher.seqs('s')).toEqual([0]);
    await expect(fetch(`${hub.url}/healthz`)).rejects.toThrow();
    expect((await store.head('s')).headSeq).toBe(0);
    await store.close();
  });

  it('shuts the CLI process down on SIGTERM with GOING_AWAY and exit code 0', async () => {
    const node = await HubProcess.start([]);
    expect(node.stdout).toMatch(/engine: memory .*NOTHING IS PERSISTED/);
    const client = await RawHubClient.connect(node.wsUrl);
    expect(
      await client.request({ type: 'append', sessionId: 'cli', events: [{ type: 'x/y', data: 1 }] }),
    ).toMatchObject({ type: 'ack' });
    const exited = node.terminate();
    expect((await client.closed).code).toBe(CloseCode.GOING_AWAY);
    expect(await exited).toEqual({ code: 0, signal: null });
  });
});
