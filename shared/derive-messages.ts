import { SessionLogError } from './errors.ts';
import { isSurfaceType } from './event-types.ts';
import type { DerivedMessage, SessionEvent } from './events.ts';
import { projectEvent } from './project-event.ts';

/** A derived message and the seq of the surface event it was projected from. */
export interface SourcedMessage {
  readonly seq: number;
  readonly message: DerivedMessage;
}

/**
 * The pure, from-scratch projection of a valid log: fold the surface (append pushes the seq; replace swaps the
 * covered range for the new seq), then map each surface node through `projectEvent`, skipping nulls.
 * Independent of `MessageProjector` on purpose (it is the reference the incremental projection is checked against).
 */
export function deriveMessages(events: readonly SessionEvent[]): DerivedMessage[] {
  return deriveSourcedMessages(events).map((sourced) => sourced.message);
}

/** `deriveMessages`, each message with the seq of its surface event (for errors that name the seq). */
export function deriveSourcedMessages(events: readonly SessionEvent[]): SourcedMessage[] {
  const surface: number[] = [];
  for (const event of events) {
    if (!isSurfaceType(event.type)) continue;
    const op = event.surfaceOp;
    if (op === undefined) throw invalid(event.seq, 'INVALID_EVENT', 'a surface event must carry its surfaceOp');
    if (op === 'append') {
      surface.push(event.seq);
      continue;
    }
    const start = surface.indexOf(op.startSeq);
    const end = surface.indexOf(op.endSeq, start);
    if (start < 0 || end < 0) throw invalid(event.seq, 'SURFACE_VIOLATION', 'replace range is not on the surface');
    surface.splice(start, end - start + 1, event.seq);
  }
  const messages: SourcedMessage[] = [];
  for (const seq of surface) {
    const event = events[seq];
    const message = event === undefined ? null : projectEvent(event);
    if (message !== null) messages.push({ seq, message });
  }
  return messages;
}

function invalid(seq: number, code: 'INVALID_EVENT' | 'SURFACE_VIOLATION', reason: string): SessionLogError {
  return new SessionLogError(code, `event ${seq}: ${reason}`, { seq });
}
