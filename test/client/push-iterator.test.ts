import { describe, expect, it } from 'vitest';
import { PushIterator } from '../../client/event-iterator.ts';

describe('PushIterator', () => {
  it('yields pushed values in order, waiting when empty, and ends after end()', async () => {
    let returned = false;
    const iterator = new PushIterator<number>(() => {
      returned = true;
    });
    iterator.push(1);
    const seen: number[] = [];
    const consumer = (async () => {
      for await (const value of iterator) seen.push(value);
    })();
    iterator.push(2);
    await Promise.resolve();
    iterator.push(3);
    iterator.end();
    iterator.push(4);
    await consumer;
    expect(seen).toEqual([1, 2, 3]);
    expect(returned).toBe(false);
  });

  it('rejects a waiting pull after fail(), and break calls onReturn', async () => {
    const failing = new PushIterator<number>(() => undefined);
    const pull = failing.next();
    failing.fail(new Error('gone'));
    await expect(pull).rejects.toThrow('gone');

    let returned = false;
    const iterator = new PushIterator<number>(() => {
      returned = true;
    });
    iterator.push(7);
    for await (const value of iterator) {
      expect(value).toBe(7);
      break;
    }
    expect(returned).toBe(true);
  });
});
