import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloseCode, PROTOCOL_BOUNDS } from '../../shared/protocol.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/**
 * Issue 11, hole 1: one `hello` whose `versions` held 200,000 entries made `Math.max(...versions)` throw inside an
 * async handler with no rejection handler, and the node process exited. Against a real node process (the CLI):
 * such a hello is refused with BAD_REQUEST and a 1002 close, and the node keeps serving (the process guard fails
 * this test if the node crashes).
 */
describe('an oversized hello against a real node process', () => {
  let node: HubProcess;
  beforeAll(async () => {
    node = await HubProcess.start([]);
  });
  afterAll(async () => {
    await node.terminate();
  });

  async function expectServed(sessionId: string): Promise<void> {
    const client = await RawHubClient.connect(node.wsUrl);
    expect(await client.request({ type: 'append', sessionId, events: [{ type: 'x/y', data: 1 }] })).toMatchObject({
      type: 'ack',
    });
    await client.close();
  }

  it.each(['binary', 'text'] as const)('refuses 200,000 versions (%s frame) and keeps serving', async (format) => {
    const versions = new Array<number>(200_000).fill(1);
    const client = await RawHubClient.connect(node.wsUrl, { hello: false, format });
    const hello = { type: 'hello', id: 1, versions };
    client.sendRaw(format === 'binary' ? encodeMsgpackValue(hello) : JSON.stringify(hello));
    expect(await client.waitFor((m) => m.type === 'error')).toMatchObject({
      id: 1,
      code: 'BAD_REQUEST',
      message: expect.stringContaining(`more than ${PROTOCOL_BOUNDS.versions} entries`) as unknown,
    });
    expect((await client.closed).code).toBe(CloseCode.PROTOCOL_ERROR);
    expect(node.child.exitCode).toBeNull();
    await expectServed(`oversized-hello/${format}`);
  });

  it('still picks the highest shared version from a hello within the bound', async () => {
    const client = await RawHubClient.connect(node.wsUrl, { hello: false });
    const versions = [...new Array<number>(PROTOCOL_BOUNDS.versions - 1).fill(7), 1];
    expect(await client.request({ type: 'hello', versions })).toMatchObject({ type: 'welcome', version: 1 });
    await client.close();
  });
});
