import { describe, expect, it } from 'vitest';
import { createHub } from '../../server/hub.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';

describe('createHub: configuration errors are clear at creation', () => {
  it('refuses an unknown log level (from logLevel or LOG_LEVEL) with a RangeError naming the levels', async () => {
    const store = new MemoryStore();
    expect(() => createHub({ store, logLevel: 'verbose' })).toThrow(/invalid log level "verbose" \(one of trace/);
    expect(() => createHub({ store, limits: { maxFrameBytes: 0 } })).toThrow();
    await store.close();
  });
});
