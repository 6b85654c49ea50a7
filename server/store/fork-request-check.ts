import { isSeq } from '../../shared/protocol-parse.ts';
import { StoreRequestError } from './event-store.ts';
import type { ForkRequest } from './fork-store.ts';
import { validateSessionId } from './session-id.ts';

/** Throws `StoreRequestError` unless the fork request is well-formed (both engines check the same way). */
export function checkForkRequest(request: ForkRequest): void {
  validateSessionId(request.parentId);
  validateSessionId(request.childId);
  if (request.parentId === request.childId) throw new StoreRequestError('a session cannot be its own fork');
  if (!isSeq(request.atSeq)) throw new StoreRequestError('atSeq must be a non-negative safe integer');
  if (typeof request.parentEpoch !== 'string' || request.parentEpoch === '') {
    throw new StoreRequestError("parentEpoch must be the parent's epoch");
  }
  if (!Array.isArray(request.events) || request.events.length > 10_000) {
    throw new StoreRequestError('a fork starts with at most 10,000 events');
  }
}
