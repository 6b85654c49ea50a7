import { SessionLogError } from './errors.ts';
import { isSurfaceType } from './event-types.ts';
import type { DerivedMessage, SessionEvent } from './events.ts';
import { projectEvent } from './project-event.ts';

/**
 * The pure, from-scratch projection of a valid log: fold the surface (append pushes the seq; replace swaps the
 * covered range for the new seq), then map each surface node through `projectEvent`, skipping nulls.
 * Independent of `MessageProjector` on purpose (it is the reference the incremental projection is checked against).
 */
export function deriveMessages(events: readonly SessionEvent[]): DerivedMessage[] {
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
  const messages: DerivedMessage[] = [];
  for (const seq of surface) {
    const event = events[seq];
    const message = event === undefined ? null : projectEvent(event);
    if (message !== null) messages.push(message);
  }
  return messages;
}

function invalid(seq: number, code: 'INVALID_EVENT' | 'SURFACE_VIOLATION', reason: string): SessionLogError {
  return new SessionLogError(code, `event ${seq}: ${reason}`, { seq });
}
