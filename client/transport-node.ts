import WebSocket from 'ws';
import type { WebSocketConstructor } from './transport.ts';

/** Node transport: the `ws` package (supports binary frames and `terminate()`), whatever the Node version. */
export function defaultWebSocket(): WebSocketConstructor {
  return WebSocket;
}
