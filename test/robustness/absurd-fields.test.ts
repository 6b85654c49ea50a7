import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloseCode, HubErrorCode, type ServerMessage } from '../../shared/protocol.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/**
 * Issue 11, hole 1, for the whole class: every client message type, with fields made structurally absurd (long
 * arrays, long strings, objects with many keys, deep nesting, huge or fractional numbers, wrong types), sent to a
 * real node process. Each must be answered (a reply to its id, or a typed error that is not INTERNAL) or end with
 * a protocol close (1002 for a bad hello, 1009 for a frame above 1 MiB); never 1011. A legitimate client is served
 * after every case, and the process guard fails the test if the node dies.
 */

/** Nesting too deep to build as a value here: spliced into the encoded frame in place of a marker string. */
class Deep {
  constructor(readonly depth: number) {}
}

const absurd: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1_000, max: 300_000 }), fc.constantFrom<unknown>(0, 1, 'x', null, true, {}))
    .map(([length, item]) => new Array<unknown>(length).fill(item)),
  fc.integer({ min: 1_000, max: 400_000 }).map((length) => 'x'.repeat(length)),
  fc.integer({ min: 1_000, max: 50_000 }).map((keys) => Object.fromEntries(range(keys).map((k) => [`k${k}`, k]))),
  fc.integer({ min: 100, max: 200_000 }).map((depth) => new Deep(depth)),
  fc.constantFrom<unknown>(2 ** 53, 2 ** 64, -1, -(2 ** 63), 1e308, -1e308, 0.5, Number.MAX_VALUE, -0),
  fc.anything({ maxDepth: 3 }),
);

function range(length: number): number[] {
  return Array.from({ length }, (_, index) => index);
}

type Builder = (id: number) => Record<string, unknown>;
const user = { type: 'user/message', data: { role: 'user', content: 'hi' } };
const messages: Record<string, Builder> = {
  hello: (id) => ({ type: 'hello', id, versions: [1] }),
  auth: (id) => ({ type: 'auth', id, token: 't' }),
  subscribe: (id) => ({
    type: 'subscribe',
    id,
    sessionId: 'absurd/s',
    fromSeq: 0,
    epoch: 'e',
    presence: true,
    label: 'l',
  }),
  unsubscribe: (id) => ({ type: 'unsubscribe', id, sessionId: 'absurd/s' }),
  append: (id) => ({
    type: 'append',
    id,
    sessionId: 'absurd/a',
    events: [{ ...user, surfaceOp: 'append', sourceEventSeqs: [] }],
    idempotencyKey: `k${id}`,
    after: 'k0',
  }),
  ping: (id) => ({ type: 'ping', id }),
};

/** Set `path` (`field` or `events.0.field`) of `message` to `value`. */
function setPath(message: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let target = message as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    const next = target[part];
    if (typeof next !== 'object' || next === null) return; // an earlier replacement took the container away
    target = next as Record<string, unknown>;
  }
  target[parts.at(-1)!] = value;
}

function fieldPaths(message: Record<string, unknown>): string[] {
  const paths = Object.keys(message);
  if (message['type'] === 'append')
    paths.push('events.0.type', 'events.0.data', 'events.0.surfaceOp', 'events.0.sourceEventSeqs');
  return paths;
}

/** Encode `message`, splicing each `Deep` in as that many nested one-element arrays. */
function encode(message: Record<string, unknown>, format: 'binary' | 'text'): Uint8Array | string {
  const deeps: Deep[] = [];
  const marked = JSON.parse(
    JSON.stringify(message, (_, value: unknown) => {
      if (!(value instanceof Deep)) return value;
      deeps.push(value);
      return `@deep${deeps.length - 1}@`;
    }),
  ) as unknown;
  if (format === 'text') {
    let text = JSON.stringify(marked);
    deeps.forEach((deep, index) => {
      text = text.replace(`"@deep${index}@"`, '['.repeat(deep.depth) + ']'.repeat(deep.depth));
    });
    return text;
  }
  let bytes = Buffer.from(encodeMsgpackValue(marked));
  deeps.forEach((deep, index) => {
    const marker = Buffer.from(encodeMsgpackValue(`@deep${index}@`));
    const at = bytes.indexOf(marker);
    const nested = Buffer.concat([Buffer.alloc(deep.depth, 0x91), Buffer.from([0xc0])]);
    bytes = Buffer.concat([bytes.subarray(0, at), nested, bytes.subarray(at + marker.length)]);
  });
  return bytes;
}

/** JSON.stringify drops what it cannot hold; keep what the frame can: replace undefined/functions by null. */
function jsonSafe(value: unknown): unknown {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint'
    ? null
    : value;
}

describe('every client message with absurd fields, against a real node process', () => {
  let node: HubProcess;
  let legit: RawHubClient;
  let hostile: RawHubClient | undefined;
  let nextId = 1_000;
  const outcomes = new Map<string, number>();

  beforeAll(async () => {
    node = await HubProcess.start([]);
    legit = await RawHubClient.connect(node.wsUrl);
  });
  afterAll(async () => {
    await legit.close();
    await hostile?.close();
    await node.terminate();
  });

  /** Send one frame and wait for its answer: a reply to `id`, an error, or a close. */
  async function answer(
    client: RawHubClient,
    frame: Uint8Array | string,
    id: number,
  ): Promise<ServerMessage | { closed: number }> {
    const from = client.messages.length;
    client.sendRaw(frame);
    const reply = client
      .waitFor((m) => m.type === 'error' || ('id' in m && m.id === id), { from, timeoutMs: 20_000 })
      .catch(async (error: unknown) => {
        if (client.ws.readyState === client.ws.OPEN) throw error;
        return { closed: (await client.closed).code };
      });
    return Promise.race([reply, client.closed.then((closed) => ({ closed: closed.code }))]);
  }

  it.each(Object.keys(messages))(
    '%s',
    async (type) => {
      const build = messages[type]!;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.nat(), absurd), { minLength: 1, maxLength: 2 }),
          fc.constantFrom('binary' as const, 'text' as const),
          async (replacements, format) => {
            const id = nextId++;
            const message = build(id);
            const paths = fieldPaths(message);
            for (const [pick, value] of replacements) {
              setPath(message, paths[pick % paths.length]!, format === 'text' ? jsonSafe(value) : value);
            }
            const frame = encode(message, format);
            let client: RawHubClient;
            if (type === 'hello') client = await RawHubClient.connect(node.wsUrl, { hello: false, format });
            else {
              if (hostile?.ws.readyState !== hostile?.ws.OPEN || hostile?.format !== format) {
                await hostile?.close();
                hostile = await RawHubClient.connect(node.wsUrl, { format });
              }
              client = hostile!;
            }
            // The reply echoes the id the message carries (which may itself have been replaced).
            const outcome = await answer(client, frame, typeof message['id'] === 'number' ? message['id'] : id);
            if ('closed' in outcome) {
              expect([CloseCode.PROTOCOL_ERROR, CloseCode.MESSAGE_TOO_BIG]).toContain(outcome.closed);
              if (outcome.closed === CloseCode.PROTOCOL_ERROR)
                expect(type === 'hello' || client !== hostile).toBe(true);
            } else if (outcome.type === 'error') {
              expect(Object.values(HubErrorCode)).toContain(outcome.code);
              expect(outcome.code).not.toBe(HubErrorCode.INTERNAL);
            }
            const label =
              'closed' in outcome ? `close ${outcome.closed}` : outcome.type === 'error' ? outcome.code : outcome.type;
            outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
            if (type === 'hello') await client.close();
            expect(await legit.request({ type: 'ping' })).toMatchObject({ type: 'pong' });
          },
        ),
        { numRuns: 25, endOnFailure: true },
      );
      expect(node.child.exitCode).toBeNull();
    },
    120_000,
  );

  it('the node still serves appends and subscriptions afterwards', async () => {
    expect(await legit.request({ type: 'subscribe', sessionId: 'absurd/after' })).toMatchObject({ type: 'subscribed' });
    expect(await legit.request({ type: 'append', sessionId: 'absurd/after', events: [user] })).toMatchObject({
      type: 'ack',
      firstSeq: 0,
    });
    await legit.waitFor((m) => m.type === 'events' && m.sessionId === 'absurd/after');
    // The cases did reach the parser: most were refused with BAD_REQUEST naming the field.
    expect(outcomes.get(HubErrorCode.BAD_REQUEST)).toBeGreaterThan(0);
  });
});
