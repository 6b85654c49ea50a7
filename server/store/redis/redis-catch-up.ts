import type { StoredPage } from '../event-store.ts';
import { checkNotTrimmed } from '../trimmed-error.ts';
import type { StoreErrorReporter } from '../watcher-registry.ts';
import type { RedisClient } from './redis-connection.ts';
import { streamEntryParts } from './redis-entries.ts';
import type { SessionKeys } from './redis-keys.ts';
import { pageTargetOf, PageTooLarge, RedisPageConnection } from './redis-page-connection.ts';
import { readPageInMulti } from './redis-page-multi.ts';
import { BoundedPageReader } from './redis-bounded-read.ts';

/** Counts a store keeps itself, read at scrape time (the hub's metrics). */
export interface RedisStoreCounters {
  /** Catch-up pages read through ioredis although the raw reader is on (it could not: see the log line). */
  rawReadFallbacks: number;
  /** Raw replies that outgrew their read's byte budget: dropped with the socket, read again cut by Redis. */
  rawReadsOverBudget: number;
}

/** The catch-up reads fell back from the raw reader to ioredis (reported once per run, with the reason). */
export class RawReadFallback extends Error {
  override readonly name = 'RawReadFallback';
}

export interface CatchUpReaderOptions {
  /** Read pages over the raw RESP socket where the topology allows it (default true). */
  readonly rawReads?: boolean | undefined;
  /** A raw reply over this many bytes is dropped and read again in fewer entries. Default 64 MiB. */
  readonly maxReadReplyBytes?: number | undefined;
  /** A raw reply not complete this long after it was awaited fails the read. Default 5 × the command timeout. */
  readonly maxReadMs?: number | undefined;
  readonly commandTimeoutMs: number;
  /** Where the fallback's log line goes (the store's error reporter). */
  readonly report: StoreErrorReporter;
  /** Run a Redis call, its failure mapped to the store's errors. */
  readonly call: <T>(send: () => Promise<T>) => Promise<T>;
}

export const DEFAULT_MAX_READ_REPLY_BYTES = 64 * 1024 * 1024;

/**
 * The store's catch-up pages: over the raw RESP socket (redis-page-connection.ts) when it can read the page and
 * the epoch did not change between its two `GET`s (a log started or was deleted meanwhile); otherwise in one
 * `MULTI` through ioredis (redis-page-multi.ts), the reference the raw path is checked against
 * (test/store/redis-catch-up-property.test.ts). Each fallback while the raw reader is on is counted, and the first
 * of a run is reported with its reason.
 *
 * A read bounded by bytes (`maxBytes`) caps the raw reply near its budget (`maxBytes` plus the RESP around the
 * entries) and cuts the page it holds to `maxBytes`; a reply past the cap is dropped with the socket and the page
 * read again through ioredis by the bounded script (redis-bounded-read.ts), which cuts it in Redis. Where the raw
 * reader cannot read, a bounded read goes to that script instead of `MULTI`.
 */
export class CatchUpReader {
  readonly counters: RedisStoreCounters = { rawReadFallbacks: 0, rawReadsOverBudget: 0 };
  readonly #command: RedisClient;
  readonly #bounded: BoundedPageReader;
  readonly #pages: RedisPageConnection | undefined;
  readonly #options: CatchUpReaderOptions;
  /** Whether the current run of fallbacks was reported (a raw read ends the run). */
  #fallbackReported = false;

  constructor(command: RedisClient, options: CatchUpReaderOptions) {
    this.#command = command;
    this.#options = options;
    this.#bounded = new BoundedPageReader(command);
    if (options.rawReads !== false) {
      const pages = new RedisPageConnection(() => pageTargetOf(command), {
        idleTimeoutMs: options.commandTimeoutMs,
        maxReadMs: options.maxReadMs ?? 5 * options.commandTimeoutMs,
        maxReplyBytes: options.maxReadReplyBytes ?? DEFAULT_MAX_READ_REPLY_BYTES,
      });
      command.on('ready', () => pages.reset()); // after a reconnect the master may sit behind the same address
      this.#pages = pages;
    }
  }

  async read(
    keys: SessionKeys,
    sessionId: string,
    fromSeq: number,
    limit: number,
    maxBytes?: number,
  ): Promise<StoredPage> {
    const pages = this.#pages;
    if (pages !== undefined) {
      const raw = await this.#rawPage(pages, keys, sessionId, fromSeq, limit, maxBytes);
      if (raw === OVER_BUDGET) {
        this.counters.rawReadsOverBudget++;
        return this.readBounded(keys, sessionId, fromSeq, limit, maxBytes!);
      }
      if (raw !== undefined && raw.epochBefore === raw.epochAfter) {
        this.#fallbackReported = false;
        return storedPage(raw.epochBefore, fromSeq, () => raw);
      }
      if (raw === undefined) this.#fellBack(pages.whyNot);
    }
    if (maxBytes !== undefined) return this.readBounded(keys, sessionId, fromSeq, limit, maxBytes);
    const { epoch, entries, base } = await this.readInMulti(keys, fromSeq, limit);
    return storedPage(epoch, fromSeq, () => {
      checkNotTrimmed(sessionId, fromSeq, base, epoch);
      return streamEntryParts(sessionId, fromSeq, entries);
    });
  }

  /** The page through ioredis, cut to `maxBytes` by Redis (redis-bounded-read.ts). */
  readBounded(
    keys: SessionKeys,
    sessionId: string,
    fromSeq: number,
    limit: number,
    maxBytes: number,
  ): Promise<StoredPage> {
    return this.#options.call(() => this.#bounded.read(keys, sessionId, fromSeq, limit, maxBytes));
  }

  readInMulti(keys: SessionKeys, fromSeq: number, limit: number): ReturnType<typeof readPageInMulti> {
    return this.#options.call(() => readPageInMulti(this.#command, keys, fromSeq, limit));
  }

  close(): void {
    this.#pages?.close();
  }

  /**
   * A raw page. Bounded by bytes: its reply capped near `maxBytes`, `OVER_BUDGET` past it. Otherwise one over the
   * store's reply cap is read again in an eighth of the entries (a page may hold fewer).
   */
  async #rawPage(
    pages: RedisPageConnection,
    keys: SessionKeys,
    sessionId: string,
    fromSeq: number,
    limit: number,
    maxBytes: number | undefined,
  ): Promise<Awaited<ReturnType<RedisPageConnection['read']>> | typeof OVER_BUDGET> {
    if (maxBytes !== undefined) {
      try {
        return await this.#options.call(() => pages.read(keys, sessionId, fromSeq, limit, maxBytes));
      } catch (error) {
        if (error instanceof PageTooLarge) return OVER_BUDGET;
        throw error;
      }
    }
    for (let count = limit; ; count = Math.max(1, Math.floor(count / 8))) {
      try {
        return await this.#options.call(() => pages.read(keys, sessionId, fromSeq, count));
      } catch (error) {
        if (!(error instanceof PageTooLarge) || count === 1) throw error;
      }
    }
  }

  #fellBack(why: string): void {
    this.counters.rawReadFallbacks++;
    if (this.#fallbackReported) return;
    this.#fallbackReported = true;
    this.#options.report(
      new RawReadFallback(
        `redis: catch-up pages are read through ioredis (MULTI, or the bounded script) for now: ${why}`,
      ),
    );
  }
}

/** A raw reply outgrew its read's byte budget (dropped): the page is read again by the bounded script. */
const OVER_BUDGET = Symbol('over budget');

/** A session without an epoch reads as empty, whatever its stream holds (its entries are not even checked). */
function storedPage(
  epoch: string,
  firstSeq: number,
  parts: () => Pick<StoredPage, 'bodies' | 'times' | 'truncated'>,
): StoredPage {
  if (epoch === '') return { epoch: undefined, firstSeq, bodies: [], times: [] };
  const { bodies, times, truncated } = parts();
  return truncated === true ? { epoch, firstSeq, bodies, times, truncated } : { epoch, firstSeq, bodies, times };
}
