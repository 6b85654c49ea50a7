import { defaultLimits, type HubLimits } from '../limits/limits.ts';

/** One resource limit as a `serve` flag and environment variable (`--max-frame-bytes` / `SESSION_HUB_MAX_FRAME_BYTES`). */
export interface LimitFlag {
  readonly limit: keyof HubLimits;
  readonly flag: string;
  readonly env: string;
  /** What the number counts, for the usage text. */
  readonly unit: string;
  readonly help: string;
}

function limitFlag(limit: keyof HubLimits, unit: string, help: string): LimitFlag {
  const kebab = limit.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return { limit, flag: kebab, env: `SESSION_HUB_${kebab.replace(/-/g, '_').toUpperCase()}`, unit, help };
}

/** Every limit of `HubLimits`, in the order `--help` and docs/operations.md list them. */
export const LIMIT_FLAGS: readonly LimitFlag[] = [
  limitFlag('maxFrameBytes', 'bytes', 'largest WebSocket frame / HTTP body; also the byte cap of a page'),
  limitFlag('maxEventsPerAppend', 'events', 'most events in one append'),
  limitFlag('maxEventBytes', 'bytes', 'largest event (its JSON)'),
  limitFlag('maxEventDepth', 'levels', 'deepest nesting of arrays/objects in an event'),
  limitFlag('maxSubscriptionsPerConnection', 'subscriptions', 'most subscriptions on one connection'),
  limitFlag('maxConnections', 'connections', 'most open WebSocket connections on this node'),
  limitFlag('maxPendingConnections', 'connections', 'sockets without hello yet on this node (oldest dropped beyond)'),
  limitFlag('maxPendingPerAddress', 'connections', 'sockets without hello yet from one address (429 beyond)'),
  limitFlag('helloTimeoutMs', 'ms', 'time a new connection has to send hello'),
  limitFlag('maxSubscriptionsPerNode', 'subscriptions', 'most subscriptions on this node, all connections together'),
  limitFlag('tokenRefreshGraceMs', 'ms', 'a connection whose token expired is closed 1008 after this long'),
  limitFlag('maxTokenLifetimeMs', 'ms', 'longest a connection may use one token (default: its exp)'),
  limitFlag('headersTimeoutMs', 'ms', 'time an HTTP client has to send its request headers'),
  limitFlag('requestTimeoutMs', 'ms', 'time an HTTP client has to send its whole request'),
  limitFlag('keepAliveTimeoutMs', 'ms', 'an idle HTTP keep-alive socket is closed after this long'),
  limitFlag('catchUpPageSize', 'events', 'events per store read in catch-up, and per HTTP page'),
  limitFlag('maxBufferedLiveEvents', 'events', 'live events a catching-up subscriber buffers'),
  limitFlag('appendsPerSecond', 'per second', 'sustained appends per connection'),
  limitFlag('appendBurst', 'appends', 'appends per connection at once above that rate'),
  limitFlag(
    'principalAppendsPerSecond',
    'per second',
    'sustained appends per token subject (address when open), WebSocket and HTTP together',
  ),
  limitFlag('principalAppendBurst', 'appends', 'appends per token subject at once above that rate'),
  limitFlag('rateLimitCloseAfterMs', 'ms', 'a connection rate-limited this long is closed 4029'),
  limitFlag('maxBufferedBytes', 'bytes', 'outbound bytes queued per connection before live pushes stop'),
  limitFlag(
    'stallTimeoutMs',
    'ms',
    'a connection that drains nothing this long is closed 4008; also an HTTP page write',
  ),
  limitFlag('maxConcurrentPageReads', 'requests', 'HTTP event pages read and written at once on this node'),
];

/** The usage lines of the limit flags, each with its env variable and default. */
export function limitFlagsUsage(): string {
  return LIMIT_FLAGS.map(({ limit, flag, env, unit, help }) => {
    const head = `  --${flag} <n>`.padEnd(38);
    return `${head}${help}\n${' '.repeat(38)}(${unit}; env ${env}; default ${defaultLimits[limit] ?? 'unset'})`;
  }).join('\n');
}
