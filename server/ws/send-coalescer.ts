import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/**
 * Coalesces the frames a connection sends within one event-loop turn into one socket write: the first send of a
 * turn corks the underlying TCP socket and a `setImmediate` uncorks it. Under load (many acks or live batches per
 * turn) this turns one `writev` syscall per frame into one per turn; an idle connection pays at most one loop
 * iteration of latency.
 */
export class SendCoalescer {
  readonly #socket: Duplex | undefined;
  #corked = false;

  constructor(ws: WebSocket) {
    // `_socket` is not in ws's public types, but it is the documented-by-use way to reach the TCP socket.
    this.#socket = (ws as unknown as { _socket?: Duplex })._socket;
  }

  /** Call before each `ws.send`. */
  beforeSend(): void {
    const socket = this.#socket;
    if (this.#corked || socket === undefined) return;
    this.#corked = true;
    socket.cork();
    setImmediate(() => {
      this.#corked = false;
      socket.uncork();
    });
  }
}
