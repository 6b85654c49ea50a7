import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (a hub node, a redis-server), for fault injection on real connections: `cutAll()`
 * destroys the server-facing sockets, so clients see the server side vanish without a close frame;
 * `injectToClients()` sends clients bytes the server never sent.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #pairs = new Set<{ readonly client: Socket; readonly upstream: Socket }>();
  readonly upstreamPort: number;

  private constructor(upstreamPort: number) {
    this.upstreamPort = upstreamPort;
    this.#server = createServer((client) => this.#pipe(client));
  }

  static async start(upstreamPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(upstreamPort);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy not listening');
    return address.port;
  }

  /** Connections currently proxied. */
  get size(): number {
    return this.#pairs.size;
  }

  /** Kill every proxied connection from the server side. */
  cutAll(): number {
    const count = this.#pairs.size;
    for (const pair of this.#pairs) {
      pair.upstream.destroy();
      pair.client.destroy();
    }
    this.#pairs.clear();
    return count;
  }

  /** Write `bytes` to every proxied client as if the upstream had sent them (a compromised path); how many got them. */
  injectToClients(bytes: string | Buffer): number {
    for (const pair of this.#pairs) pair.client.write(bytes);
    return this.#pairs.size;
  }

  /** Stop forwarding in both directions without closing anything: the connections go silent (half-dead). */
  freezeAll(): void {
    for (const pair of this.#pairs) {
      pair.client.unpipe(pair.upstream);
      pair.upstream.unpipe(pair.client);
      pair.client.pause();
      pair.upstream.pause();
    }
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #pipe(client: Socket): void {
    const upstream = connect(this.upstreamPort, '127.0.0.1');
    const pair = { client, upstream };
    this.#pairs.add(pair);
    const end = (): void => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
