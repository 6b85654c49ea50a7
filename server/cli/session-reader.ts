import type { SessionEvent } from '../../shared/index.ts';
import { CliFailure } from './command.ts';
import { HubRequestError, type HubHttp } from './hub-http.ts';
import { withRetries } from './retry.ts';

/** Events asked for per page (the hub caps it at its catch-up page size). */
export const PAGE_SIZE = 500;

/**
 * Read a session's log page by page, up to the head it had at the first page, handing each page to `onPage`
 * (memory stays bounded by one page; a page may hold fewer events than asked for while more follow). Pages the hub
 * cannot serve yet (RATE_LIMITED, ...) are asked for again. Fails when the session's epoch changes meanwhile (deleted, rewritten),
 * and with one clear line when its early seqs are gone (GONE: trimmed from the hub's log).
 * Resolves with the number of events read.
 */
export async function readPages(
  http: HubHttp,
  sessionId: string,
  onPage: (events: readonly SessionEvent[], headSeq: number) => Promise<void> | void,
): Promise<number> {
  try {
    return await readAllPages(http, sessionId, onPage);
  } catch (error) {
    if (!(error instanceof HubRequestError) || error.code !== 'GONE') throw error;
    throw new CliFailure(goneLine(sessionId, error.details?.['firstSeq']));
  }
}

/** The one line said when a session's early seqs are gone (trimmed from the hub's log; HTTP 410 GONE). */
export function goneLine(sessionId: string, firstSeq: unknown): string {
  const from = typeof firstSeq === 'number' ? ` before seq ${firstSeq}` : '';
  const rest =
    typeof firstSeq === 'number' ? `; \`session-hub tail ${sessionId} --from ${firstSeq}\` reads the rest` : '';
  return `GONE: the events of ${sessionId}${from} are no longer held by the hub (trimmed from its log)${rest}`;
}

async function readAllPages(
  http: HubHttp,
  sessionId: string,
  onPage: (events: readonly SessionEvent[], headSeq: number) => Promise<void> | void,
): Promise<number> {
  let page = await withRetries(() => http.page(sessionId, 0, PAGE_SIZE), { unreachable: false });
  const { epoch, headSeq } = page;
  let read = 0;
  for (;;) {
    if (page.epoch !== epoch) {
      throw new CliFailure(`${sessionId} was deleted or replaced while it was read (its epoch changed)`);
    }
    const events = page.events.filter((event) => event.seq <= headSeq);
    read += events.length;
    await onPage(events, headSeq);
    if (page.next > headSeq || page.events.length === 0) break;
    const from = page.next;
    page = await withRetries(() => http.page(sessionId, from, PAGE_SIZE), { unreachable: false });
  }
  if (read !== headSeq + 1) throw new CliFailure(`${sessionId} ended at seq ${read - 1}, before its head ${headSeq}`);
  return read;
}
