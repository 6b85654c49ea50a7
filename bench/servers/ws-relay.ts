import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ChildServer } from '../child/probe.ts';

/** The ack a publisher gets once its frame was handed to every subscriber socket. */
export const RELAY_ACK = Buffer.from([1]);

/**
 * The fan-out ceiling for one Node process: a bare `ws` server. Subscribers connect to `/?role=sub`; a publisher
 * connects to `/?role=pub` and sends already-encoded frames, which the server forwards byte for byte to every
 * subscriber (no decode, no encode, no storage), then acks with one byte.
 */
export async function startWsRelay(host = '127.0.0.1'): Promise<ChildServer> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false });
  const subscribers = new Set<WebSocket>();
  wss.on('connection', (socket, request) => {
    const role = new URL(request.url ?? '/', 'http://relay').searchParams.get('role');
    if (role === 'sub') {
      subscribers.add(socket);
      socket.on('close', () => subscribers.delete(socket));
      return;
    }
    socket.on('message', (frame: Buffer) => {
      for (const subscriber of subscribers) subscriber.send(frame, { binary: true });
      socket.send(RELAY_ACK, { binary: true });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, host, resolve));
  return {
    ports: [(http.address() as AddressInfo).port],
    stop: async () => {
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
