/**
 * Child-process entry for the baselines (see child/probe.ts for the IPC): BENCH_CONFIG is
 * `{ "kind": "ws-relay" }`, `{ "kind": "xadd-relay", "redisUrl": "redis://..." }` or
 * `{ "kind": "socketio", "redisUrl": "redis://..." }` or `{ "kind": "tcp-echo" }`.
 */
import { serveInChild } from './child/probe.ts';
import { startSocketIo } from './servers/socketio.ts';
import { startTcpEcho } from './servers/tcp-echo.ts';
import { startWsRelay } from './servers/ws-relay.ts';
import { startXaddRelay } from './servers/xadd-relay.ts';

export type BaselineConfig =
  | { readonly kind: 'ws-relay' }
  | { readonly kind: 'xadd-relay'; readonly redisUrl: string }
  | { readonly kind: 'socketio'; readonly redisUrl: string }
  | { readonly kind: 'tcp-echo' };

const config = JSON.parse(process.env['BENCH_CONFIG'] ?? '{}') as BaselineConfig;
await serveInChild(() => {
  switch (config.kind) {
    case 'ws-relay':
      return startWsRelay();
    case 'xadd-relay':
      return startXaddRelay(config.redisUrl);
    case 'socketio':
      return startSocketIo(config.redisUrl);
    case 'tcp-echo':
      return startTcpEcho();
  }
});
