import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ClientMessage, ServerMessage } from '../../shared/protocol.ts';
import { encodeFrame, encodeMsgpackValue, encodeTextFrame } from '../../shared/codec.ts';

// Compile-time checks: `npm run typecheck` fails when a `@ts-expect-error` line stops being an error.
describe('codec types', () => {
  it('encodeFrame and encodeTextFrame take protocol messages only', () => {
    expectTypeOf(encodeFrame).parameter(0).toEqualTypeOf<ClientMessage | ServerMessage>();
    expectTypeOf(encodeTextFrame).parameter(0).toEqualTypeOf<ClientMessage | ServerMessage>();
    // @ts-expect-error not a protocol message
    expect(encodeFrame({ type: 'teleport', id: 1 })).toBeInstanceOf(Uint8Array);
  });

  it('encodeMsgpackValue encodes any value, the same bytes as encodeFrame for a message', () => {
    const message: ClientMessage = { type: 'ping', id: 3 };
    expect(encodeMsgpackValue(message)).toEqual(encodeFrame(message));
    expect(encodeMsgpackValue(42)).toBeInstanceOf(Uint8Array);
  });
});
