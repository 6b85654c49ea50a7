import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ChildServer } from '../child/probe.ts';

/** The ack a publisher gets once its frame was handled. */
export const RELAY_ACK = Buffer.from([1]);

/**
 * The part both relay baselines share: a bare `ws` server on `host`, a free port. Subscribers connect to
 * `/?role=sub` and are kept in `subscribers` while open; any other connection is a publisher, handed to
 * `onPublisher`. `stop` closes every socket and the server, then runs `onStop`.
 */
export async function startRelayServer(
  host: string,
  subscribers: Set<WebSocket>,
  onPublisher: (socket: WebSocket) => void,
  onStop: () => void = () => undefined,
): Promise<ChildServer> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false });
  wss.on('connection', (socket, request) => {
    const role = new URL(request.url ?? '/', 'http://relay').searchParams.get('role');
    if (role !== 'sub') return onPublisher(socket);
    subscribers.add(socket);
    socket.on('close', () => subscribers.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, host, resolve));
  return {
    ports: [(http.address() as AddressInfo).port],
    stop: async () => {
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
      onStop();
    },
  };
}
