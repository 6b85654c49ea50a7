import WebSocket from 'ws';
import type { SocketIoAppend } from '../servers/socketio.ts';
import { benchDraft } from '../workload.ts';
import type { Closable, FanoutSystem, FanoutWriter, OnDelivery } from './types.ts';
import { deliverEvents } from './ws-relay-clients.ts';

/**
 * A minimal Socket.IO v4 client over a bare `ws` socket (Engine.IO 4, websocket transport, default JSON parser):
 * as cheap on the client side as the raw clients of the other systems, so the load generator measures the server,
 * not socket.io-client.
 */
export class RawSocketIoClient {
  readonly #socket: WebSocket;
  readonly #acks = new Map<number, (args: unknown[]) => void>();
  #nextAck = 1;
  #onEvent: (name: string, payload: unknown) => void = () => undefined;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
  }

  static async connect(port: number): Promise<RawSocketIoClient> {
    // Handlers go on before `open`: the server's open packet can arrive in the same read as the upgrade.
    const socket = new WebSocket(`ws://127.0.0.1:${port}/socket.io/?EIO=4&transport=websocket`, {
      perMessageDeflate: false,
    });
    const client = new RawSocketIoClient(socket);
    await new Promise<void>((resolve, reject) => {
      let connected = false;
      socket.once('error', reject);
      socket.once('close', () => {
        if (!connected) reject(new Error('socket.io connection closed during handshake'));
      });
      socket.on('message', (data: Buffer) => {
        const text = data.toString();
        if (!connected && text.startsWith('0')) socket.send('40');
        else if (!connected && text.startsWith('40')) {
          connected = true;
          resolve();
        } else client.#onPacket(text);
      });
    });
    return client;
  }

  #onPacket(text: string): void {
    if (text === '2') {
      this.#socket.send('3');
    } else if (text.startsWith('42')) {
      const [name, payload] = JSON.parse(text.slice(2)) as [string, unknown];
      this.#onEvent(name, payload);
    } else if (text.startsWith('43')) {
      const bracket = text.indexOf('[');
      const id = Number(text.slice(2, bracket));
      const resolve = this.#acks.get(id);
      this.#acks.delete(id);
      resolve?.(JSON.parse(text.slice(bracket)) as unknown[]);
    }
  }

  onEvent(listener: (name: string, payload: unknown) => void): void {
    this.#onEvent = listener;
  }

  /** Emit an event and wait for its acknowledgement. */
  emitWithAck(name: string, payload: unknown): Promise<unknown[]> {
    const id = this.#nextAck++;
    return new Promise((resolve) => {
      this.#acks.set(id, resolve);
      this.#socket.send(`42${id}${JSON.stringify([name, payload])}`);
    });
  }

  close(): void {
    this.#socket.terminate();
  }
}

/** Socket.IO clients: subscribers join the session's room; the writer emits `append` with an ack. */
export const socketIoSystem: FanoutSystem = {
  name: 'Socket.IO + redis-streams-adapter',
  async subscribe(port: number, sessionId: string, onDelivery: OnDelivery): Promise<Closable> {
    const client = await RawSocketIoClient.connect(port);
    client.onEvent((name, payload) => {
      if (name === 'events') deliverEvents({ type: 'events', ...(payload as object) }, onDelivery);
    });
    await client.emitWithAck('join', sessionId);
    return client;
  },
  async writer(port: number, sessionId: string): Promise<FanoutWriter> {
    const client = await RawSocketIoClient.connect(port);
    return {
      async append(index: number, sentAtMs: number): Promise<void> {
        const batch: SocketIoAppend = { sessionId, events: [benchDraft(index, sentAtMs)] };
        await client.emitWithAck('append', batch);
      },
      close: () => client.close(),
    };
  },
};
