import { afterAll, beforeAll } from 'vitest';

/**
 * For the calling describe block: a value started in `beforeAll` and stopped in `afterAll`. The returned object
 * reads through to it, so read its fields inside tests (reading them earlier throws, naming `name`).
 */
export function suiteFixture<T extends object>(
  name: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<void>,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  });
  return new Proxy({} as T, {
    get(_, key) {
      if (started === undefined) throw new Error(`${name}: read the fixture inside a test (after beforeAll)`);
      return Reflect.get(started, key) as unknown;
    },
  });
}
