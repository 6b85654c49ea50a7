import type { WebSocket } from 'ws';
import type { ChildServer } from '../child/probe.ts';
import { RELAY_ACK, startRelayServer } from './relay-server.ts';

/**
 * The fan-out ceiling for one Node process: a bare `ws` server. Subscribers connect to `/?role=sub`; a publisher
 * connects to `/?role=pub` and sends already-encoded frames, which the server forwards byte for byte to every
 * subscriber (no decode, no encode, no storage), then acks with one byte.
 */
export function startWsRelay(host = '127.0.0.1'): Promise<ChildServer> {
  const subscribers = new Set<WebSocket>();
  return startRelayServer(host, subscribers, (socket) => {
    socket.on('message', (frame: Buffer) => {
      for (const subscriber of subscribers) subscriber.send(frame, { binary: true });
      socket.send(RELAY_ACK, { binary: true });
    });
  });
}
