import { connect, type Socket } from 'node:net';
import { Cluster } from 'ioredis';
import type { RedisClient } from './redis-connection.ts';
import type { SessionKeys } from './redis-keys.ts';
import { parsePageReplies, RespReplyError, RespReplyScanner, type RespPage } from './resp-page.ts';

/** Where the command connection is connected now, and how it logs in. */
interface PageTarget {
  readonly host: string;
  readonly port: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly db: number;
}

/**
 * The Redis the command connection talks to right now (for Sentinel: the master it follows), or undefined where
 * the catch-up reads go through ioredis: a Cluster (slots move), TLS, a Unix socket, a connection not ready.
 */
export function pageTargetOf(redis: RedisClient): PageTarget | undefined {
  if (redis instanceof Cluster || redis.status !== 'ready') return undefined;
  const { options } = redis;
  if (isSet(options.tls) || isSet(options.path)) return undefined;
  const { remoteAddress, remotePort } = redis.stream as Socket;
  if (remoteAddress === undefined || remotePort === undefined) return undefined;
  return {
    host: remoteAddress,
    port: remotePort,
    username: nonEmpty(options.username),
    password: nonEmpty(options.password),
    db: typeof options.db === 'number' ? options.db : 0,
  };
}

const isSet = (value: unknown): boolean => value !== undefined && value !== null;
const nonEmpty = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

interface PendingReplies {
  readonly scanner: RespReplyScanner;
  readonly resolve: (bytes: Buffer) => void;
  readonly reject: (error: Error) => void;
}

/** A connection's failure: the caller reads the page the usual way (ioredis), which reports the real state. */
class PageConnectionLost extends Error {
  override readonly name = 'PageConnectionLost';
}

const command = (...args: string[]): string =>
  `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;

/**
 * A plain socket to the store's Redis for catch-up pages only: `GET epoch`, `XRANGE`, `GET epoch` written in RESP,
 * the replies gathered in one buffer and parsed into the page's bodies (views of it) and times, without the
 * objects ioredis makes per entry (docs/performance.md, "Catch-up reads in raw RESP"). Connects on first use and
 * again after a failure, or when the command connection moved to another address (a Sentinel failover).
 */
export class RedisPageConnection {
  readonly #target: () => PageTarget | undefined;
  readonly #timeoutMs: number;
  #socket: Socket | undefined;
  #address = '';
  #queue: PendingReplies[] = [];
  #data: Buffer | undefined;
  #length = 0;
  #lastReplyBytes = 0;

  constructor(target: () => PageTarget | undefined, timeoutMs: number) {
    this.#target = target;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Read a page; undefined when this connection cannot (no target, or it failed: the caller reads the usual way).
   * An error reply rejects with `RespReplyError`, a malformed entry with `StoreDataError`.
   */
  async read(keys: SessionKeys, sessionId: string, fromSeq: number, limit: number): Promise<RespPage | undefined> {
    const socket = this.#connected();
    if (socket === undefined) return undefined;
    const epoch = command('GET', keys.epoch);
    socket.write(`${epoch}${command('XRANGE', keys.log, `${fromSeq}-0`, '+', 'COUNT', String(limit))}${epoch}`);
    let bytes: Buffer;
    try {
      bytes = await this.#replies(3);
    } catch (error) {
      if (error instanceof PageConnectionLost) return undefined;
      throw error;
    }
    return parsePageReplies(bytes, sessionId, fromSeq);
  }

  close(): void {
    this.#fail(new PageConnectionLost('the store is closed'));
  }

  #connected(): Socket | undefined {
    const target = this.#target();
    if (target === undefined) return undefined;
    const address = `${target.host}:${target.port}/${target.db}`;
    if (this.#socket !== undefined && address === this.#address) return this.#socket;
    this.#fail(new PageConnectionLost('the command connection moved'));
    const socket = connect({ host: target.host, port: target.port, noDelay: true });
    socket.on('data', (chunk: Buffer) => this.#onData(socket, chunk));
    socket.on('error', (error) => this.#lost(socket, error.message));
    socket.on('close', () => this.#lost(socket, 'closed'));
    this.#socket = socket;
    this.#address = address;
    if (target.password !== undefined) {
      const auth =
        target.username === undefined ? ['AUTH', target.password] : ['AUTH', target.username, target.password];
      this.#handshake(socket, auth);
    }
    if (target.db !== 0) this.#handshake(socket, ['SELECT', String(target.db)]);
    return socket;
  }

  /** Send a login command; its refusal closes the connection (the page read after it fails over to ioredis). */
  #handshake(socket: Socket, args: string[]): void {
    socket.write(command(...args));
    this.#replies(1).then(
      (reply) => {
        if (reply[0] !== 0x2b) this.#lost(socket, `${args[0]!} refused: ${reply.toString('utf8', 1).trim()}`);
      },
      () => undefined, // the connection failed: its reads were told
    );
  }

  #replies(count: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.#lost(this.#socket, `no reply after ${this.#timeoutMs} ms`), this.#timeoutMs);
      this.#queue.push({
        scanner: new RespReplyScanner(count),
        resolve: (bytes) => {
          clearTimeout(timer);
          resolve(bytes);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }

  #onData(socket: Socket, chunk: Buffer): void {
    if (socket !== this.#socket) return;
    if (this.#data === undefined) {
      this.#data = chunk;
      this.#length = chunk.length;
    } else {
      if (this.#length + chunk.length > this.#data.length) {
        // The last reply's size first (pages of a replay are alike), then doubling: each byte is copied about once.
        const needed = this.#length + chunk.length;
        const grown = Buffer.allocUnsafe(Math.max(needed, 2 * this.#data.length, this.#lastReplyBytes));
        this.#data.copy(grown, 0, 0, this.#length);
        this.#data = grown;
      }
      chunk.copy(this.#data, this.#length);
      this.#length += chunk.length;
    }
    try {
      this.#deliver();
    } catch (error) {
      this.#lost(socket, (error as Error).message);
    }
  }

  /** Hand every complete reply to its reader; the bytes after it move to a buffer of their own. */
  #deliver(): void {
    while (this.#data !== undefined) {
      const head = this.#queue[0];
      if (head === undefined) throw new RespReplyError('a reply nobody asked for');
      const end = head.scanner.scan(this.#data, this.#length);
      if (end < 0) return;
      this.#queue.shift();
      const bytes = this.#data.subarray(0, end);
      this.#lastReplyBytes = end;
      const rest = this.#length - end;
      this.#data = rest === 0 ? undefined : Buffer.from(this.#data.subarray(end, this.#length));
      this.#length = rest;
      head.resolve(bytes);
    }
  }

  #lost(socket: Socket | undefined, why: string): void {
    if (socket === undefined || socket !== this.#socket) return;
    this.#fail(new PageConnectionLost(`catch-up connection to ${this.#address}: ${why}`));
  }

  #fail(error: Error): void {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#data = undefined;
    this.#length = 0;
    socket?.destroy();
    const queue = this.#queue;
    this.#queue = [];
    for (const pending of queue) pending.reject(error);
  }
}
