import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ChildServer } from '../child/probe.ts';

/**
 * The least a Node server can do per message: a bare TCP server that writes back every chunk it reads. Its CPU per
 * message at a fixed rate is the cost of one wake-up, one read and one write on the machine at hand
 * (bench/wakeup-floor.ts).
 */
export async function startTcpEcho(host = '127.0.0.1'): Promise<ChildServer> {
  const server = createServer((socket) => {
    socket.on('data', (chunk) => socket.write(chunk));
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    ports: [(server.address() as AddressInfo).port],
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
