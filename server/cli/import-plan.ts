import { createHash } from 'node:crypto';
import { parseJsonl, SessionLogError, toJsonl, validateLifecycle, type SessionEvent } from '../../shared/index.ts';
import { CliFailure } from './command.ts';

/** What `session-hub import` sends: the file's events from `start` on (the ones before are in the target). */
export interface ImportPlan {
  /** Every event of the file, with its seq in the target log. */
  readonly events: readonly SessionEvent[];
  /** Index into `events` of the first event to send (the target already holds the ones before). */
  readonly start: number;
}

/** One append of an import: events of one commit time, a key derived from their content. */
export interface ImportBatch {
  readonly events: readonly SessionEvent[];
  readonly time: number;
  readonly idempotencyKey: string;
}

export interface BatchLimits {
  readonly maxEvents: number;
  /** Most bytes of event JSON in one append (the hub's frame limit, with room for the envelope). */
  readonly maxBytes: number;
}

/** Line numbers (1-based) of the non-blank lines of a JSONL text, as `parseJsonl` counts them. */
function eventLines(text: string): number[] {
  const lines: number[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() !== '') lines.push(index + 1);
  });
  return lines;
}

/** The `seq` of the first event line, when it is one (for `--append`: where the file continues the log). */
function firstSeq(text: string, line: number | undefined): number | undefined {
  if (line === undefined) return undefined;
  try {
    const seq = (JSON.parse(text.split('\n')[line - 1]!) as { seq?: unknown }).seq;
    return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Validate a JSONL file whole against the target session's current log (`target`) and decide what to send.
 * The file is a whole log (seqs from 0) or, with `append`, may continue the target (its first seq is at most the
 * target's length; the target's events before it are taken as the log's beginning). Target events that overlap
 * the file must equal the file's (an import interrupted earlier, resumed); any other non-empty target is refused
 * unless `append` and the file starts right after it. Times must never go back and not lie in the future; the
 * lifecycle rules (turns, steps, tool calls) hold unless `lifecycle` is false.
 * Throws `CliFailure` whose message names the line and the rule.
 */
export function planImport(
  text: string,
  target: readonly SessionEvent[],
  options: { readonly append: boolean; readonly now: number; readonly lifecycle?: boolean },
): ImportPlan {
  const lines = eventLines(text);
  if (lines.length === 0) throw new CliFailure('the file holds no events');
  let offset = 0;
  if (options.append) {
    const seq = firstSeq(text, lines[0]);
    if (seq === undefined || seq > target.length) {
      throw new CliFailure(
        `line ${lines[0]}: with --append the first event's seq must be at most the target's length (${target.length})`,
      );
    }
    offset = seq;
  }
  let events: readonly SessionEvent[];
  try {
    // The target's events before the file make its beginning: the file is validated as their continuation.
    events = parseJsonl(toJsonl(target.slice(0, offset)) + text);
  } catch (error) {
    if (!(error instanceof SessionLogError)) throw error;
    throw new CliFailure(error.message.replace(/^line (\d+)/, (_, line: string) => `line ${Number(line) - offset}`));
  }
  const lineOf = (seq: number): number => lines[seq - offset]!;
  for (let seq = Math.max(offset, 1); seq < events.length; seq++) {
    if (events[seq]!.time < events[seq - 1]!.time) {
      throw new CliFailure(`line ${lineOf(seq)}: time ${events[seq]!.time} is before the previous event's time`);
    }
  }
  // The lifecycle rules a hub enforces by default (turns, steps, tool calls), unless the caller says it does not.
  if (options.lifecycle !== false) {
    const violation = validateLifecycle(events).find((found) => found.seq >= offset);
    if (violation !== undefined) {
      throw new CliFailure(`line ${lineOf(violation.seq)}: ${violation.code}: ${violation.message}`);
    }
  }
  const last = events[events.length - 1]!;
  if (last.time > options.now) throw new CliFailure(`line ${lineOf(last.seq)}: time ${last.time} is in the future`);
  const overlap = Math.min(target.length, events.length);
  for (let seq = offset; seq < overlap; seq++) {
    if (toJsonl([target[seq]!]) !== toJsonl([events[seq]!])) {
      throw new CliFailure(
        `the target already holds ${target.length} events and its event ${seq} differs from line ${lineOf(seq)}` +
          (options.append ? '' : ' (--append adds a file that continues the log)'),
      );
    }
  }
  if (target.length > events.length) {
    throw new CliFailure(`the target already holds ${target.length} events, more than the file's ${events.length}`);
  }
  return { events: events.slice(offset), start: target.length - offset };
}

/**
 * Cut events into appends: runs of one commit time (each append stores one time), at most `maxEvents` events and
 * `maxBytes` of JSON each. The key of an append is a hash of its events (seqs and times included), so running the
 * same import again sends the same keys and the hub answers `duplicate` for what it already holds.
 */
export function importBatches(events: readonly SessionEvent[], limits: BatchLimits): ImportBatch[] {
  const batches: ImportBatch[] = [];
  let current: SessionEvent[] = [];
  let bytes = 0;
  const flush = (): void => {
    if (current.length === 0) return;
    const idempotencyKey = `import-${createHash('sha256').update(toJsonl(current)).digest('base64url')}`;
    batches.push({ events: current, time: current[0]!.time, idempotencyKey });
    current = [];
    bytes = 0;
  };
  for (const event of events) {
    const size = Buffer.byteLength(JSON.stringify(event));
    const full = current.length >= limits.maxEvents || (current.length > 0 && bytes + size > limits.maxBytes);
    if (full || (current.length > 0 && current[0]!.time !== event.time)) flush();
    current.push(event);
    bytes += size;
  }
  flush();
  return batches;
}
