import { SessionLogError } from './errors.ts';
import type { SessionEvent } from './events.ts';
import { LogValidator } from './log-validator.ts';

function lineError(line: number, reason: string, options: { seq?: number; path?: string; cause?: unknown } = {}) {
  return new SessionLogError('INVALID_LOG', `line ${line}: ${reason}`, options);
}

/**
 * Accepts the replace spellings of other writers: `{ op: 'replace', start, end }` and
 * `{ op, start_seq, end_seq }` become `{ op: 'replace', startSeq, endSeq }`.
 */
function normalizeSurfaceOp(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const { op, start, end, start_seq, end_seq, ...rest } = value as Record<string, unknown>;
  if (start === undefined && end === undefined && start_seq === undefined && end_seq === undefined) return value;
  const startSeq = rest['startSeq'] ?? start ?? start_seq;
  const endSeq = rest['endSeq'] ?? end ?? end_seq;
  return { ...rest, op, startSeq, endSeq };
}

/** Accepts snake_case envelope keys (`surface_op`, `source_event_seqs`) and the replace spellings. */
function normalizeEvent(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const { surface_op, source_event_seqs, ...event } = value as Record<string, unknown>;
  if (event['surfaceOp'] === undefined && surface_op !== undefined) event['surfaceOp'] = surface_op;
  if (event['sourceEventSeqs'] === undefined && source_event_seqs !== undefined) {
    event['sourceEventSeqs'] = source_event_seqs;
  }
  if (event['surfaceOp'] !== undefined) event['surfaceOp'] = normalizeSurfaceOp(event['surfaceOp']);
  return event;
}

/** `kind` of the metadata header line an export may start with (`{"kind":"session-hub/metadata", …}`). */
export const JSONL_METADATA_KIND = 'session-hub/metadata';

function isMetadataHeader(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === JSONL_METADATA_KIND;
}

/**
 * Parses a JSONL session log (one event per line; blank lines are skipped, and so is a first line that is the
 * metadata header of an export, `{"kind":"session-hub/metadata", …}`) and validates it like
 * `Session.fromLog`. Returns frozen events with the canonical spellings.
 * @throws SessionLogError `INVALID_LOG` whose message names the line (and `seq` the event, when known).
 */
export function parseJsonl(text: string): readonly SessionEvent[] {
  const events: unknown[] = [];
  const lineOfEvent: number[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw lineError(index + 1, `not JSON (${(error as Error).message})`, { cause: error });
    }
    if (events.length === 0 && isMetadataHeader(value)) continue; // the export's header: not an event
    events.push(normalizeEvent(value));
    lineOfEvent.push(index + 1);
  }
  try {
    return Object.freeze(new LogValidator().checkStored(events, true));
  } catch (error) {
    if (!(error instanceof SessionLogError) || error.seq === undefined) throw error;
    const line = lineOfEvent[Math.min(error.seq, lineOfEvent.length - 1)]!;
    throw lineError(line, error.message, {
      seq: error.seq,
      ...(error.path === undefined ? {} : { path: error.path }),
      cause: error.cause ?? error,
    });
  }
}

/** Serializes events as JSONL: one event per line (`seq, type, time, data, surfaceOp?, sourceEventSeqs?`). */
export function toJsonl(events: readonly SessionEvent[]): string {
  let text = '';
  for (const { seq, type, time, data, surfaceOp, sourceEventSeqs } of events) {
    text += `${JSON.stringify({ seq, type, time, data, surfaceOp, sourceEventSeqs })}\n`;
  }
  return text;
}
