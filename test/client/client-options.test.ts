import { describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { checkIntervalMs, MAX_TIMER_MS } from '../../client/options-check.ts';
import { thrown } from '../helpers/thrown.ts';

/** A URL nothing listens on: a refused option must throw before any socket is opened. */
const url = 'ws://127.0.0.1:9/v1/ws';

describe('SDK: HubClient options are checked before a socket opens', () => {
  it.each([
    ['heartbeatIntervalMs', { heartbeatIntervalMs: 0 }],
    ['heartbeatTimeoutMs', { heartbeatTimeoutMs: Number.NaN }],
    ['connectTimeoutMs', { connectTimeoutMs: Number.POSITIVE_INFINITY }],
    ['tokenRefreshIntervalMs', { tokenRefreshIntervalMs: -5 }],
    ['maxFrameBytes', { maxFrameBytes: 1.5 }],
    ['outboxLimit', { outboxLimit: 0 }],
    ['maxAppendsInFlightPerSession', { maxAppendsInFlightPerSession: -1 }],
    ['reconnect.initialDelayMs', { reconnect: { initialDelayMs: 0 } }],
    ['reconnect.maxDelayMs', { reconnect: { initialDelayMs: 500, maxDelayMs: 100 } }],
    ['reconnect.factor', { reconnect: { factor: 0.5 } }],
  ])('refuses a bad %s with BAD_REQUEST naming it', (name, options) => {
    const error = thrown(() => new HubClient({ url, token: () => 'unused', ...options }));
    expect(error).toMatchObject({ code: 'BAD_REQUEST' });
    expect((error as Error).message).toContain(name);
  });

  it('caps an interval above what setTimeout honours instead of letting it fire at once', () => {
    expect(checkIntervalMs('heartbeatIntervalMs', 2 ** 40)).toBe(MAX_TIMER_MS);
    expect(checkIntervalMs('heartbeatIntervalMs', 1500)).toBe(1500);
  });
});
