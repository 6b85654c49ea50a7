import type { WebSocketConstructor } from './transport.ts';

/** Browser transport: the platform's own `WebSocket` (no Node built-ins, no `ws` in the bundle). */
export function defaultWebSocket(): WebSocketConstructor {
  const constructor = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (constructor === undefined) throw new Error('no global WebSocket: pass the WebSocket option');
  return constructor;
}
