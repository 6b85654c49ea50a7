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

  it('answers several pulls made before any value, in order; end and fail settle every pending pull', async () => {
    const iterator = new PushIterator<number>(() => undefined);
    const first = iterator.next();
    const second = iterator.next();
    const third = iterator.next();
    iterator.push(1);
    iterator.push(2);
    expect(await first).toEqual({ value: 1, done: false });
    expect(await second).toEqual({ value: 2, done: false });
    iterator.end();
    expect(await third).toEqual({ value: undefined, done: true });

    const failing = new PushIterator<number>(() => undefined);
    const pulls = [failing.next(), failing.next()];
    failing.fail(new Error('gone'));
    await expect(pulls[0]).rejects.toThrow('gone');
    expect(await pulls[1]).toEqual({ value: undefined, done: true });
  });

  it('settles a pending pull as done when return() is called while it waits', async () => {
    let returned = 0;
    const iterator = new PushIterator<number>(() => returned++);
    const pending = iterator.next();
    expect(await iterator.return()).toEqual({ value: undefined, done: true });
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(returned).toBe(1);
    iterator.push(5);
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });
});
