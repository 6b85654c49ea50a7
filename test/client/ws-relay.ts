import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { decodeFrame } from '../../shared/codec.ts';

/**
 * A WebSocket relay in front of a hub node: every client connection is relayed frame by frame (binary stays
 * binary) to its own connection to the hub, and a test can inject extra frames towards the clients, or lose an ack.
 */
export class WsRelay {
  /**
   * When set, the next `ack` from the hub is not passed on: both connections of that client are cut instead (the
   * append committed and its writer never heard; it re-sends it on its next connection). Cleared once done.
   */
  cutOnNextAck = false;
  /** Acks lost that way so far. */
  acksCut = 0;
  readonly #server: WebSocketServer;
  readonly #clients = new Set<WebSocket>();
  readonly #upstreamUrl: string;

  private constructor(server: WebSocketServer, upstreamUrl: string) {
    this.#server = server;
    this.#upstreamUrl = upstreamUrl;
    server.on('connection', (client) => this.#relay(client));
  }

  static async start(upstreamUrl: string): Promise<WsRelay> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    return new WsRelay(server, upstreamUrl);
  }

  get wsUrl(): string {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('relay not listening on a port');
    return `ws://127.0.0.1:${address.port}/v1/ws`;
  }

  /** Client connections currently relayed. */
  get size(): number {
    return this.#clients.size;
  }

  /** Send `data` to every relayed client, as if the hub had sent it. */
  inject(data: Uint8Array | string): void {
    for (const client of this.#clients) client.send(data, { binary: typeof data !== 'string' });
  }

  async close(): Promise<void> {
    for (const client of this.#clients) client.terminate();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #relay(client: WebSocket): void {
    const upstream = new WebSocket(this.#upstreamUrl);
    const queued: { data: RawData; binary: boolean }[] = [];
    this.#clients.add(client);
    client.on('message', (data, binary) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary });
      else queued.push({ data, binary });
    });
    upstream.on('open', () => {
      for (const { data, binary } of queued.splice(0)) upstream.send(data, { binary });
    });
    const end = (): void => {
      this.#clients.delete(client);
      client.terminate();
      upstream.terminate();
    };
    upstream.on('message', (data, binary) => {
      if (this.cutOnNextAck && isAck(data, binary)) {
        this.cutOnNextAck = false;
        this.acksCut++;
        end();
        return;
      }
      client.send(data, { binary });
    });
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  }
}

function isAck(data: RawData, binary: boolean): boolean {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
  const message = decodeFrame(binary ? new Uint8Array(bytes) : bytes.toString()) as { readonly type?: unknown };
  return message.type === 'ack';
}
