import type { ServerResponse } from 'node:http';
import { HubErrorCode } from '../../shared/protocol.ts';
import type { HubLimits } from '../limits/limits.ts';
import { HubError } from '../hub-error.ts';
import type { Logger } from '../logger.ts';
import type { ConcurrencySlots } from '../limits/concurrency-slots.ts';
import { endedLog, safeReadCount, storeReadLimits } from '../limits/store-reads.ts';
import type { EventStore } from '../store/event-store.ts';
import type { HttpReply } from './http-reply.ts';
import { EncodedEventPage } from '../store/codec/encoded-page.ts';

export interface EventPageRequest {
  readonly sessionId: string;
  readonly from: number;
  /** Most events (already capped at `catchUpPageSize`). */
  readonly limit: number;
}

export interface EventPageDeps {
  readonly store: EventStore;
  readonly limits: Pick<HubLimits, 'catchUpPageSize' | 'maxFrameBytes' | 'maxEventBytes' | 'stallTimeoutMs'>;
  readonly pageSlots: ConcurrencySlots;
  readonly logger: Logger;
}

/**
 * Events per store read of a page: as many as can be sure to fit in the node's read bound (`safeReadCount`: four
 * pages' worth of bytes, whatever the events), at least one. A page holds one frame's worth at most, so its reads
 * never grow past this.
 */
function readCap(limits: EventPageDeps['limits']): number {
  return safeReadCount(storeReadLimits(limits));
}

/** The bytes of bodies one store read of a page may return (the node's read bound; one event at least). */
function readBytes(limits: EventPageDeps['limits']): number {
  return storeReadLimits(limits).readBytes;
}

/**
 * `GET /v1/sessions/:id/events`: a page of at most `limit` events and about `maxFrameBytes` bytes of them (at least
 * one event, like a WebSocket catch-up frame), streamed: each event is written once the client has read the ones
 * before it (the response's backpressure), so a client that does not read holds a few KB of the hub's memory, not a
 * page; one that reads nothing for `stallTimeoutMs` is cut. At most `maxConcurrentPageReads` pages are in the
 * making at once on a node (more get 429 RATE_LIMITED). The events and the epoch come from the same atomic
 * `readStoredPage`, verified and decoded as catch-up pages are (`EncodedEventPage`); a later read of the same page that finds another epoch (the session was deleted meanwhile) ends the
 * page there.
 */
export async function eventPageReply(request: EventPageRequest, deps: EventPageDeps): Promise<HttpReply> {
  const release = deps.pageSlots.tryAcquire();
  if (release === undefined) {
    throw new HubError(HubErrorCode.RATE_LIMITED, 'too many event pages are being read on this node; retry shortly', {
      retryAfterMs: 1000,
      limit: deps.pageSlots.capacity,
      scope: 'page-reads',
    });
  }
  try {
    const { store } = deps;
    const { sessionId, from, limit } = request;
    const firstWant = Math.min(limit, readCap(deps.limits));
    const stored = await store.readStoredPage(sessionId, from, firstWant, readBytes(deps.limits));
    const first = new EncodedEventPage(sessionId, stored);
    if (first.count === 0) {
      const head = await store.head(sessionId);
      if (from > head.headSeq + 1) {
        const message = `from ${from} lies beyond the head + 1 (${head.headSeq + 1})`;
        throw new HubError(HubErrorCode.SEQ_OUT_OF_RANGE, message, { headSeq: head.headSeq });
      }
      release();
      const epoch = first.epoch ?? head.epoch;
      return { status: 200, body: { sessionId, epoch, headSeq: head.headSeq, events: [], next: from } };
    }
    const epoch = first.epoch!;
    return {
      status: 200,
      body: undefined,
      write: (response) => writePage(response, request, epoch, first, firstWant, deps).finally(release),
    };
  } catch (error) {
    release();
    throw error;
  }
}

async function writePage(
  response: ServerResponse,
  request: EventPageRequest,
  epoch: string,
  firstPage: EncodedEventPage,
  firstWant: number,
  deps: EventPageDeps,
): Promise<void> {
  const { store, limits } = deps;
  const { sessionId, limit } = request;
  const out = new PageWriter(response, limits.stallTimeoutMs);
  await out.write(`{"sessionId":${JSON.stringify(sessionId)},"epoch":${JSON.stringify(epoch)},"events":[`);
  let next = request.from;
  let count = 0;
  let bytes = 0;
  let events = firstPage.events();
  let truncated = firstPage.truncated;
  let asked = firstWant;
  let full = false;
  for (;;) {
    for (const event of events) {
      const text = JSON.stringify(event);
      const size = Buffer.byteLength(text);
      if (count > 0 && bytes + size > limits.maxFrameBytes) {
        full = true;
        break;
      }
      if (!(await out.write(count === 0 ? text : `,${text}`))) return; // the client went away: nothing to finish
      count++;
      bytes += size;
      next = event.seq + 1;
    }
    // Full, or a short read (not cut for bytes): the log ends here (for now).
    if (full || count >= limit || endedLog(events.length, asked, truncated)) break;
    const room = Math.floor((limits.maxFrameBytes - bytes) / Math.max(1, bytes / count));
    const want = Math.min(limit - count, readCap(limits), Math.max(1, room));
    try {
      asked = want;
      const stored = await store.readStoredPage(sessionId, next, want, readBytes(limits));
      const page = new EncodedEventPage(sessionId, stored);
      if (page.epoch !== epoch) break; // deleted and begun again meanwhile: this page ends in its own epoch
      events = page.events();
      truncated = page.truncated;
    } catch (error) {
      // The status line is sent: end the page with what it has (the client asks again from `next`).
      deps.logger.warn({ err: error, sessionId }, 'an event page ended early: a store read failed');
      break;
    }
  }
  let headSeq = next - 1;
  try {
    const head = await store.head(sessionId);
    if (head.epoch === epoch) headSeq = Math.max(headSeq, head.headSeq);
  } catch (error) {
    deps.logger.warn(
      { err: error, sessionId },
      'an event page reports its last event as the head: a store read failed',
    );
  }
  if (await out.write(`],"headSeq":${headSeq},"next":${next}}`)) response.end();
}

/** Writes a response in pieces, each once the client has taken the previous ones (backpressure). */
class PageWriter {
  readonly #response: ServerResponse;
  readonly #stallTimeoutMs: number;

  constructor(response: ServerResponse, stallTimeoutMs: number) {
    this.#response = response;
    this.#stallTimeoutMs = stallTimeoutMs;
  }

  /** Resolves true once `text` is handed on and the buffer has room again; false when the response is gone. */
  async write(text: string): Promise<boolean> {
    const response = this.#response;
    if (response.destroyed || response.writableEnded) return false;
    if (response.write(text)) return true;
    return new Promise((resolve) => {
      const done = (drained: boolean): void => {
        clearTimeout(timer);
        response.off('drain', onDrain);
        response.off('close', onClose);
        resolve(drained);
      };
      const onDrain = (): void => done(true);
      const onClose = (): void => done(false);
      // A client that reads nothing for this long holds a page slot for nothing: cut it.
      const timer = setTimeout(() => {
        response.destroy();
        done(false);
      }, this.#stallTimeoutMs);
      timer.unref();
      response.on('drain', onDrain);
      response.on('close', onClose);
    });
  }
}
