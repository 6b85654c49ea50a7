import { connect, type Socket } from 'node:net';
import { Cluster } from 'ioredis';
import { StoreUnavailableError } from '../event-store.ts';
import { backoffDelay, type BackoffOptions } from '../../../shared/backoff.ts';
import { KEEP_ALIVE_MS, type RedisClient } from './redis-connection.ts';
import { BASE_FIELD, type SessionKeys } from './redis-keys.ts';
import { parsePageReplies, RespProtocolError, RespReplyScanner, type RespPage } from './resp-page.ts';

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
  /** When the reply became the one awaited (the first of the queue): its total time counts from there. */
  since: number;
  /** A login command (AUTH, SELECT): anything but `+OK` fails the connection before a later reply is handed out. */
  readonly login: boolean;
  readonly resolve: (bytes: Buffer) => void;
  readonly reject: (error: Error) => void;
}

/** The connection failed: the caller reads the page the usual way (ioredis), which reports the real state. */
class PageConnectionLost extends Error {
  override readonly name = 'PageConnectionLost';
}

/** A page's replies grew past `maxReplyBytes`: read fewer entries (the bytes so far were dropped with the socket). */
export class PageTooLarge extends StoreUnavailableError {}

/** Bounds of one read on the catch-up socket. */
export interface PageReadLimits {
  /** No byte for this long while a reply is awaited: the read fails (`StoreUnavailableError`). */
  readonly idleTimeoutMs: number;
  /** The reply not complete this long after it became the awaited one (bytes dripping in): the read fails. */
  readonly maxReadMs: number;
  /** A reply growing past this many bytes fails the read with `PageTooLarge` before more is buffered. */
  readonly maxReplyBytes: number;
}

/** The name the catch-up socket gives itself (`CLIENT LIST` tells it from the store's ioredis connections). */
export const PAGE_CONNECTION_NAME = 'session-hub:catch-up';

/** After a failure the socket rests 1 s before the next try, doubling up to 30 s; a success resets it. */
const REST: BackoffOptions = { initialDelayMs: 1_000, maxDelayMs: 30_000, factor: 2 };

const command = (...args: string[]): string =>
  `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;

/**
 * A plain socket to the store's Redis for catch-up pages only: `GET epoch`, `XRANGE`, `HGET idem ''` (the base, the
 * first seq the stream holds), `GET epoch` written in RESP,
 * the replies gathered in one buffer and parsed into the page's bodies (views of it) and times, without the
 * objects ioredis makes per entry (docs/performance.md, "Catch-up reads in raw RESP"). Connects on first use, to
 * the address the command connection is connected to, and again after a failure (after a rest) or after the
 * command connection reconnected (`reset`: a failover may have moved the master behind the same address).
 */
export class RedisPageConnection {
  readonly #target: () => PageTarget | undefined;
  readonly #limits: PageReadLimits;
  #socket: Socket | undefined;
  #address = '';
  #queue: PendingReplies[] = [];
  #data: Buffer | undefined;
  #length = 0;
  #lastReplyBytes = 0;
  #closed = false;
  #failures = 0;
  #restUntil = 0;
  /** Whether the current socket answered a read: a socket that never did (refused, login refused) makes it rest. */
  #answered = false;
  /** Armed while replies are awaited, restarted by every byte that arrives. */
  #progress: ReturnType<typeof setTimeout> | undefined;
  /** Why the last read returned undefined (for the store's log line when it falls back to ioredis). */
  #whyNot = '';

  constructor(target: () => PageTarget | undefined, limits: PageReadLimits) {
    this.#target = target;
    this.#limits = limits;
  }

  /** Why the last `read` could not read (it returned undefined). */
  get whyNot(): string {
    return this.#whyNot;
  }

  /**
   * Read a page; undefined when this connection cannot (closed, no target, resting after a failure, or it failed:
   * the caller reads the usual way; `whyNot` says why). No byte for the idle timeout, or a reply not complete
   * within `maxReadMs`, rejects with `StoreUnavailableError`; replies over `maxReplyBytes` with `PageTooLarge`; an
   * error reply with a `ReplyError`; a malformed entry with `StoreDataError`.
   */
  async read(keys: SessionKeys, sessionId: string, fromSeq: number, limit: number): Promise<RespPage | undefined> {
    const socket = this.#connected();
    if (socket === undefined) return undefined;
    const epoch = command('GET', keys.epoch);
    const entries = command('XRANGE', keys.log, `${fromSeq}-0`, '+', 'COUNT', String(limit));
    // The base (first seq held) after the entries: a trim between the two shows as a base above fromSeq.
    socket.write(`${epoch}${entries}${command('HGET', keys.idempotency, BASE_FIELD)}${epoch}`);
    try {
      return parsePageReplies(await this.#replies(4, false), sessionId, fromSeq);
    } catch (error) {
      if (error instanceof RespProtocolError) this.#lost(socket, error.message);
      if (error instanceof PageConnectionLost || error instanceof RespProtocolError) {
        this.#whyNot = error.message;
        return undefined;
      }
      throw error;
    }
  }

  /** Drop the socket (the command connection reconnected); the next read connects again, without a rest. */
  reset(): void {
    this.#failures = 0;
    this.#restUntil = 0;
    this.#fail(new PageConnectionLost('the command connection reconnected'));
  }

  close(): void {
    this.#closed = true;
    this.#fail(new PageConnectionLost('the store is closed'));
  }

  #connected(): Socket | undefined {
    if (this.#closed) return this.#cannot('the store is closed');
    if (Date.now() < this.#restUntil) return this.#cannot('resting after a failed connection');
    const target = this.#target();
    if (target === undefined) return this.#cannot('no plain TCP Redis to read from (a Cluster, TLS, or not ready)');
    const address = `${target.host}:${target.port}/${target.db}`;
    if (this.#socket !== undefined && address === this.#address) return this.#socket;
    this.#fail(new PageConnectionLost('the command connection moved'));
    const { host, port } = target;
    const socket = connect({ host, port, noDelay: true, keepAlive: true, keepAliveInitialDelay: KEEP_ALIVE_MS });
    socket.on('data', (chunk: Buffer) => this.#onData(socket, chunk));
    socket.on('error', (error) => this.#lost(socket, error.message));
    socket.on('close', () => this.#lost(socket, 'closed'));
    this.#socket = socket;
    this.#address = address;
    this.#answered = false;
    if (target.password !== undefined) {
      const auth =
        target.username === undefined ? ['AUTH', target.password] : ['AUTH', target.username, target.password];
      this.#login(socket, auth);
    }
    if (target.db !== 0) this.#login(socket, ['SELECT', String(target.db)]);
    // Named for CLIENT LIST; a refusal (an ACL user without CLIENT) does not stop the reads.
    socket.write(command('CLIENT', 'SETNAME', PAGE_CONNECTION_NAME));
    this.#replies(1, false).catch(() => undefined);
    return socket;
  }

  #cannot(why: string): undefined {
    this.#whyNot = why;
    return undefined;
  }

  /** Send a login command; its refusal fails the connection in `#deliver`, before the reads behind it. */
  #login(socket: Socket, args: string[]): void {
    socket.write(command(...args));
    this.#replies(1, true).catch(() => undefined); // a failure reached the reads queued behind it
  }

  #replies(count: number, login: boolean): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ scanner: new RespReplyScanner(count), since: Date.now(), login, resolve, reject });
      this.#progress ??= setTimeout(() => this.#timedOut(), this.#limits.idleTimeoutMs).unref();
    });
  }

  /**
   * No byte for the command timeout while replies are awaited: Redis is frozen or gone. Fail like ioredis would,
   * without asking again through ioredis. (Counted from the last byte, so a large page does not fail the small
   * reads queued behind it.)
   */
  #timedOut(): void {
    this.#progress = undefined;
    if (this.#socket === undefined) return;
    this.#fail(new StoreUnavailableError(`redis read: no reply within ${this.#limits.idleTimeoutMs} ms`));
  }

  #onData(socket: Socket, chunk: Buffer): void {
    if (socket !== this.#socket) return;
    if (this.#data === undefined) {
      this.#data = chunk;
      this.#length = chunk.length;
    } else {
      const needed = this.#length + chunk.length;
      if (needed > this.#data.length) {
        // The last reply's size first (the pages of a replay are alike), then doubling: each byte is copied about
        // once. The hint is capped, so one huge page does not make every later one allocate as much.
        const hint = Math.min(this.#lastReplyBytes, 8 * needed);
        const wanted = Math.max(needed, 2 * this.#data.length, hint);
        // Never more than the cap allows (a reply past it fails below, with what was buffered).
        const grown = Buffer.allocUnsafe(Math.min(wanted, Math.max(needed, this.#limits.maxReplyBytes + 1)));
        this.#data.copy(grown, 0, 0, this.#length);
        this.#data = grown;
      }
      chunk.copy(this.#data, this.#length);
      this.#length = needed;
    }
    try {
      this.#deliver();
    } catch (error) {
      this.#lost(socket, (error as Error).message);
      return;
    }
    const head = this.#queue[0];
    if (head === undefined) {
      this.#stopProgress();
      return;
    }
    const { maxReplyBytes, maxReadMs } = this.#limits;
    if (this.#length > maxReplyBytes) {
      this.#fail(new PageTooLarge(`redis read: a reply over ${maxReplyBytes} bytes (dropped)`));
    } else if (Date.now() - head.since > maxReadMs) {
      this.#fail(new StoreUnavailableError(`redis read: the reply was not complete within ${maxReadMs} ms`));
    } else {
      this.#progress?.refresh();
    }
  }

  #stopProgress(): void {
    if (this.#progress !== undefined) clearTimeout(this.#progress);
    this.#progress = undefined;
  }

  /** Hand every complete reply to its reader; the bytes after it move to a buffer of their own. */
  #deliver(): void {
    while (this.#data !== undefined) {
      const head = this.#queue[0];
      if (head === undefined) throw new RespProtocolError('a reply nobody asked for');
      const end = head.scanner.scan(this.#data.subarray(0, this.#length), this.#length);
      if (end < 0) return;
      const bytes = this.#data.subarray(0, end);
      if (head.login && bytes[0] !== 0x2b)
        throw new PageConnectionLost(`login refused: ${bytes.toString('utf8', 1).trim()}`);
      this.#queue.shift();
      if (this.#queue[0] !== undefined) this.#queue[0].since = Date.now();
      if (!head.login) {
        this.#answered = true;
        this.#failures = 0;
        this.#lastReplyBytes = end;
      }
      const rest = this.#length - end;
      this.#data = rest === 0 ? undefined : Buffer.from(this.#data.subarray(end, this.#length));
      this.#length = rest;
      head.resolve(bytes);
    }
  }

  #lost(socket: Socket | undefined, why: string): void {
    if (socket === undefined || socket !== this.#socket) return;
    if (!this.#answered) this.#rest();
    this.#fail(new PageConnectionLost(`catch-up connection to ${this.#address}: ${why}`));
  }

  /** Rest before the next try: a Redis that refuses this socket (maxclients, a proxy's limit, a login) is not hammered. */
  #rest(): void {
    this.#failures++;
    this.#restUntil = Date.now() + backoffDelay(this.#failures - 1, REST, () => 1); // the bound itself, no jitter
  }

  #fail(error: Error): void {
    this.#stopProgress();
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
