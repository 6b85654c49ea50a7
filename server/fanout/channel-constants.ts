import type { BackoffOptions } from '../../shared/backoff.ts';

// The fixed settings and state bits of a SessionChannel (session-channel.ts).

/** Retry of a resync after a store error: up to 1 s for the first, growing to 10 s while the store keeps failing. */
export const RESYNC_RETRY: BackoffOptions = { initialDelayMs: 1000, maxDelayMs: 10_000, factor: 2 };

/** The settled promise of a channel with nothing queued, and the `ready` of a channel that found its head. */
export const SETTLED: Promise<void> = Promise.resolve();

/** Bits of `SessionChannel.#flags`: the head was read once; the first read failed; the channel was closed. */
export const INITIALIZED = 1;
export const FAILED = 2;
export const CLOSED = 4;
