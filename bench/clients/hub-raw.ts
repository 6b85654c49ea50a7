import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { type EventDraft } from '../../shared/index.ts';
import { decodeFrame, encodeMsgpackValue } from '../../shared/codec.ts';
import { PROTOCOL_VERSION, type ServerMessage } from '../../shared/protocol.ts';
import { benchDraft } from '../workload.ts';
import type { CatchUpRun } from '../targets.ts';
import type { Closable, FanoutSystem, FanoutWriter, OnDelivery } from './types.ts';
import { deliverEvents } from './ws-relay-clients.ts';

type Reply = Extract<ServerMessage, { id: number }>;
type Push = Exclude<ServerMessage, { id: number }>;

/**
 * A lean protocol-v1 client for load generation: `ws` plus the shared codec, no validation of what the hub sends
 * beyond the fields it reads, no reconnects. (The SDK does much more per event; scenario 1 measures through the
 * SDK, the fan-out and catch-up receivers use this so the load generator is not the bottleneck.)
 */
export class HubRawConnection {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, { resolve(reply: Reply): void; reject(error: Error): void }>();
  #nextId = 1;
  onPush: (message: Push) => void = () => undefined;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      const message = decodeFrame(isBinary ? data : data.toString('utf8')) as ServerMessage;
      if ('id' in message && typeof message.id === 'number') {
        const pending = this.#pending.get(message.id);
        if (pending !== undefined) {
          this.#pending.delete(message.id);
          if (message.type === 'error') pending.reject(new Error(`${message.code}: ${message.message}`));
          else pending.resolve(message as Reply);
          return;
        }
      }
      this.onPush(message as Push);
    });
    socket.on('close', () => {
      for (const pending of this.#pending.values()) pending.reject(new Error('connection closed'));
      this.#pending.clear();
    });
  }

  static async connect(port: number): Promise<HubRawConnection> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/ws`, { perMessageDeflate: false });
    const connection = new HubRawConnection(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const welcome = await connection.request({ type: 'hello', versions: [PROTOCOL_VERSION] });
    if (welcome.type !== 'welcome') throw new Error(`hello answered with ${welcome.type}`);
    return connection;
  }

  /** Send a request with a fresh id; resolves with its reply (an `error` reply rejects). */
  request(message: { readonly type: string; readonly [field: string]: unknown }): Promise<Reply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(encodeMsgpackValue({ ...message, id }));
    });
  }

  /** Append drafts to a session; resolves on the ack. */
  async append(sessionId: string, events: readonly EventDraft[]): Promise<void> {
    const reply = await this.request({ type: 'append', sessionId, events });
    if (reply.type !== 'ack') throw new Error(`append answered with ${reply.type}`);
  }

  /** Subscribe and resolve once the hub says `live` for that session. */
  async subscribeUntilLive(sessionId: string, fromSeq = 0): Promise<void> {
    const live = new Promise<void>((resolve) => {
      const previous = this.onPush;
      this.onPush = (message) => {
        previous(message);
        if (message.type === 'live' && message.sessionId === sessionId) {
          this.onPush = previous;
          resolve();
        }
      };
    });
    await this.request({ type: 'subscribe', sessionId, fromSeq });
    await live;
  }

  close(): void {
    this.#socket.terminate();
  }
}

/** The hub's fan-out clients: raw subscribers and a raw writer (1 event per append). */
export const hubRawSystem: FanoutSystem = {
  name: 'session-hub',
  async subscribe(port: number, sessionId: string, onDelivery: OnDelivery): Promise<Closable> {
    const connection = await HubRawConnection.connect(port);
    connection.onPush = (message) => deliverEvents(message, onDelivery);
    await connection.subscribeUntilLive(sessionId);
    return connection;
  },
  async writer(port: number, sessionId: string): Promise<FanoutWriter> {
    const connection = await HubRawConnection.connect(port);
    return {
      append: (index, sentAtMs) => connection.append(sessionId, [benchDraft(index, sentAtMs)]),
      close: () => connection.close(),
    };
  },
};

/** A new subscriber replays `sessionId` from seq 0, decoding every frame, until `live`. */
export async function catchUpSession(port: number, sessionId: string): Promise<CatchUpRun> {
  const connection = await HubRawConnection.connect(port);
  try {
    let events = 0;
    let lastEventAt = 0;
    const start = performance.now();
    connection.onPush = (message) => {
      if (message.type === 'events') {
        events += message.events.length;
        lastEventAt = performance.now();
      }
    };
    await connection.subscribeUntilLive(sessionId, 0);
    const timeToLiveMs = performance.now() - start;
    return { events, lastEventMs: lastEventAt - start, timeToLiveMs };
  } finally {
    connection.close();
  }
}
