/**
 * Child-process entry for the baselines (see child/probe.ts for the IPC): BENCH_CONFIG is
 * `{ "kind": "ws-relay" }` or `{ "kind": "socketio", "redisUrl": "redis://..." }`.
 */
import { serveInChild } from './child/probe.ts';
import { startSocketIo } from './servers/socketio.ts';
import { startWsRelay } from './servers/ws-relay.ts';

export type BaselineConfig = { readonly kind: 'ws-relay' } | { readonly kind: 'socketio'; readonly redisUrl: string };

const config = JSON.parse(process.env['BENCH_CONFIG'] ?? '{}') as BaselineConfig;
await serveInChild(() => (config.kind === 'ws-relay' ? startWsRelay() : startSocketIo(config.redisUrl)));
