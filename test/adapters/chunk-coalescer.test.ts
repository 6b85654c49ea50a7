// The coalescer joins a stream's deltas into chunks without reordering, cutting at a kind change, at maxChars,
// and never inside a surrogate pair. (A window far longer than the test: only explicit cuts happen.)
import { describe, expect, it } from 'vitest';
import { ChunkCoalescer } from '../../client/provider-streams/chunk-coalescer.ts';
import type { JsonObject } from '../../shared/index.ts';

function coalescer(maxChars = 1000, windowMs = 600_000): { chunks: JsonObject[]; coalescer: ChunkCoalescer } {
  const chunks: JsonObject[] = [];
  return { chunks, coalescer: new ChunkCoalescer((chunk) => chunks.push(chunk), windowMs, maxChars) };
}

describe('ChunkCoalescer', () => {
  it('joins deltas of one kind, cuts at another kind, keeps the first head', () => {
    const { chunks, coalescer: c } = coalescer();
    c.add('text:1', { type: 'text-delta' }, 'text', 'Hel');
    c.add('text:1', { type: 'text-delta' }, 'text', 'lo');
    c.add('tool:2', { type: 'tool-call-delta', index: 2, id: 'c1', name: 'f' }, 'arguments', '{"a"');
    c.add('tool:2', { type: 'tool-call-delta', index: 2 }, 'arguments', ':1}');
    expect(chunks).toEqual([{ type: 'text-delta', text: 'Hello' }]);
    c.flush();
    expect(chunks).toEqual([
      { type: 'text-delta', text: 'Hello' },
      { type: 'tool-call-delta', index: 2, id: 'c1', name: 'f', arguments: '{"a":1}' },
    ]);
  });

  it('cuts at maxChars, and a window of 0 writes each delta', () => {
    const sized = coalescer(4);
    for (const delta of ['ab', 'cd', 'ef']) sized.coalescer.add('t', { type: 'text-delta' }, 'text', delta);
    sized.coalescer.flush();
    expect(sized.chunks.map((chunk) => chunk['text'])).toEqual(['abcd', 'ef']);
    const each = coalescer(1000, 0);
    for (const delta of ['ab', 'cd']) each.coalescer.add('t', { type: 'text-delta' }, 'text', delta);
    expect(each.chunks.map((chunk) => chunk['text'])).toEqual(['ab', 'cd']);
  });

  it('never ends a chunk inside a surrogate pair', () => {
    const { chunks, coalescer: c } = coalescer(3, 0);
    const emoji = '😀'; // two UTF-16 code units
    c.add('t', { type: 'text-delta' }, 'text', `ab${emoji[0]!}`);
    c.add('t', { type: 'text-delta' }, 'text', `${emoji[1]!}c`);
    c.flush();
    expect(chunks.map((chunk) => chunk['text'])).toEqual(['ab', `${emoji}c`]);
  });
});
