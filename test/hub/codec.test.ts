import { describe, expect, it } from 'vitest';
import type { AppendRequest } from '../../shared/protocol.ts';
import { decodeFrame, encodeFrame, encodeMsgpackValue, encodeTextFrame, FrameDecodeError } from '../../shared/codec.ts';

describe('wire codec', () => {
  it('round-trips a message through msgpack and JSON frames', () => {
    const message: AppendRequest = {
      type: 'append',
      id: 7,
      sessionId: 's',
      events: [{ type: 'x/y', data: { a: [1, 'b', null] } }],
    };
    expect(decodeFrame(encodeFrame(message))).toEqual(message);
    expect(decodeFrame(encodeTextFrame(message))).toEqual(message);
  });

  it('keeps integers up to 2^53-1 exact', () => {
    expect(decodeFrame(encodeMsgpackValue({ n: Number.MAX_SAFE_INTEGER, m: -1 }))).toEqual({
      n: Number.MAX_SAFE_INTEGER,
      m: -1,
    });
  });

  it('rejects truncated msgpack, trailing bytes, empty frames and bad JSON with FrameDecodeError', () => {
    const frame = encodeFrame({ type: 'ping', id: 1 });
    const bad: (Uint8Array | string)[] = [
      frame.subarray(0, frame.length - 2),
      new Uint8Array([...frame, 0x01]),
      new Uint8Array(0),
      '{"type":',
      'not json',
    ];
    for (const data of bad) {
      expect(() => decodeFrame(data)).toThrow(FrameDecodeError);
    }
  });

  it('never throws anything but FrameDecodeError on random bytes', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % 256;
    };
    for (let round = 0; round < 500; round++) {
      const bytes = new Uint8Array(1 + (round % 40)).map(() => random());
      try {
        decodeFrame(bytes);
      } catch (error) {
        expect(error).toBeInstanceOf(FrameDecodeError);
      }
    }
  });
});
