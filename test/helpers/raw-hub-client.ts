import { WebSocket } from 'ws';
import { type SessionEvent } from '../../shared/index.ts';
import { decodeFrame, encodeMsgpackValue } from '../../shared/codec.ts';
import { parseServerMessage } from '../../shared/protocol-parse.ts';
import { PROTOCOL_VERSION, type ClientMessage, type ServerMessage } from '../../shared/protocol.ts';

/** A client request without its id: typed loosely on purpose (tests send wrong shapes too). */
type Request = { readonly type: ClientMessage['type'] | (string & {}) } & Readonly<Record<string, unknown>>;

export interface RawClientOptions {
  /** Frame format: msgpack binary frames (default) or JSON text frames. */
  readonly format?: 'binary' | 'text';
  /** Send hello and wait for welcome on connect (default true). */
  readonly hello?: boolean;
  readonly token?: string;
}

export interface Closed {
  readonly code: number;
  readonly reason: string;
}

const defaultTimeoutMs = 15_000;

/**
 * A bare protocol client for tests: speaks protocol v1 with `ws` and the shared codec, records every message it
 * receives (checked with `parseServerMessage`), and offers request/reply and wait helpers. No reconnects, no
 * dedupe: what the hub sends is what the test sees.
 */
export class RawHubClient {
  readonly ws: WebSocket;
  readonly format: 'binary' | 'text';
  /** Every message received, in order. */
  readonly messages: ServerMessage[] = [];
  /** Frames that did not parse as server messages (should stay empty). */
  readonly invalidFrames: unknown[] = [];
  readonly closed: Promise<Closed>;
  #nextId = 1;
  #waiters = new Set<() => void>();

  private constructor(ws: WebSocket, format: 'binary' | 'text') {
    this.ws = ws;
    this.format = format;
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.#notify();
      });
    });
    ws.on('message', (data, isBinary) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      const value = decodeFrame(isBinary ? bytes : bytes.toString('utf8'));
      try {
        this.messages.push(parseServerMessage(value));
      } catch {
        this.invalidFrames.push(value);
      }
      this.#notify();
    });
    ws.on('error', () => undefined);
  }

  static async connect(wsUrl: string, options: RawClientOptions = {}): Promise<RawHubClient> {
    const ws = new WebSocket(wsUrl);
    const client = new RawHubClient(ws, options.format ?? 'binary');
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    if (options.hello ?? true) {
      const welcome = await client.request({
        type: 'hello',
        versions: [PROTOCOL_VERSION],
        ...(options.token === undefined ? {} : { token: options.token }),
      });
      if (welcome.type !== 'welcome') throw new Error(`hello answered with ${JSON.stringify(welcome)}`);
    }
    return client;
  }

  /** Send a message (encoded in the client's format). */
  send(message: unknown): void {
    this.ws.send(this.format === 'binary' ? encodeMsgpackValue(message) : JSON.stringify(message));
  }

  /** Send raw bytes (binary frame) or text (text frame). */
  sendRaw(data: Uint8Array | string): void {
    this.ws.send(data, { binary: typeof data !== 'string' });
  }

  /** Send a request with a fresh id and wait for the first reply that echoes it. */
  async request(message: Request, timeoutMs = defaultTimeoutMs): Promise<ServerMessage> {
    const id = this.#nextId++;
    const from = this.messages.length;
    this.send({ ...message, id });
    return this.waitFor((reply) => 'id' in reply && reply.id === id, { timeoutMs, from });
  }

  /** Wait for a message matching `predicate` (among those received since index `from`, default 0). */
  waitFor(
    predicate: (message: ServerMessage) => boolean,
    options: { timeoutMs?: number; from?: number } = {},
  ): Promise<ServerMessage> {
    const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    return new Promise((resolve, reject) => {
      let checked = options.from ?? 0;
      const check = (): void => {
        for (; checked < this.messages.length; checked++) {
          const message = this.messages[checked]!;
          if (predicate(message)) {
            done();
            resolve(message);
            return;
          }
        }
        if (this.ws.readyState === this.ws.CLOSED) {
          done();
          reject(new Error('socket closed while waiting'));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages.slice(-5))}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** Events received for a session since its last `reset` (or since the start), in arrival order. */
  events(sessionId: string): SessionEvent[] {
    const events: SessionEvent[] = [];
    for (const message of this.messages) {
      if (message.type === 'reset' && message.sessionId === sessionId) events.length = 0;
      if (message.type === 'events' && message.sessionId === sessionId) events.push(...message.events);
    }
    return events;
  }

  seqs(sessionId: string): number[] {
    return this.events(sessionId).map((event) => event.seq);
  }

  ofType<T extends ServerMessage['type']>(type: T): Extract<ServerMessage, { type: T }>[] {
    return this.messages.filter((message): message is Extract<ServerMessage, { type: T }> => message.type === type);
  }

  close(): Promise<Closed> {
    this.ws.close();
    return this.closed;
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** `[from, from + 1, ..., to]`. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
}
