import { describe, expect, it } from 'vitest';
import { Emitter } from '../../client/emitter.ts';

type Events = { change: [next: string, previous: string]; done: [] };

describe('Emitter', () => {
  it('calls listeners in order with typed arguments; off and once work', () => {
    const emitter = new Emitter<Events>();
    const seen: string[] = [];
    const off = emitter.on('change', (next, previous) => seen.push(`a:${previous}->${next}`));
    emitter.once('change', (next) => seen.push(`once:${next}`));
    emitter.emit('change', 'x', 'w');
    off();
    emitter.emit('change', 'y', 'x');
    expect(seen).toEqual(['a:w->x', 'once:x']);
    expect(emitter.listenerCount('change')).toBe(0);
  });

  it('a throwing listener does not stop the others; its error is reported, not swallowed', () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<Events>((error) => errors.push(error));
    let reached = false;
    emitter.on('done', () => {
      throw new Error('boom');
    });
    emitter.on('done', () => {
      reached = true;
    });
    emitter.emit('done');
    expect(reached).toBe(true);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('boom');
  });
});
