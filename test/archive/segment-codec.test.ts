// The segment codec (server/archive/segment-codec.ts): a segment decodes to the events encoded, and a payload
// longer than its index entry says is refused rather than decompressed past that size.
import { expect, test } from 'vitest';
import { decodeSegment, encodeSegment } from '../../server/archive/segment-codec.ts';
import { StoreDataError } from '../../server/store/event-store.ts';
import { hexes, run } from './archive-helpers.ts';

const EPOCH = '2e9c4a71-6b3d-4f58-8e1a-5d0c7b9f3a24';

test('a segment decodes to its events; a payload larger than the index entry says does not decompress', async () => {
  const events = run('codec', EPOCH, 10, 3000);
  const encoded = await encodeSegment(events);
  const expected = { sha256: encoded.sha256, firstSeq: 10, count: 3000, bytes: encoded.bytes };
  const decoded = await decodeSegment(encoded.file, expected, 'test');
  expect(hexes(decoded.bodies)).toEqual(hexes(events.bodies));
  expect(decoded.times).toEqual(events.times);
  const short = decodeSegment(encoded.file, { ...expected, bytes: encoded.bytes - 1 }, 'test');
  await expect(short).rejects.toThrow(StoreDataError);
  await expect(short).rejects.toThrow(/does not decompress/);
});
