import { isSeq } from '../../shared/protocol-parse.ts';
import { StoreRequestError } from './event-store.ts';
import {
  MAX_RESTORE_STAGE_EVENTS,
  MAX_RESTORE_STAGE_TTL_MS,
  MAX_RESTORE_SWAP_COPY,
  type RestoreStageRequest,
  type RestoreSwapRequest,
} from './restore-store.ts';
import { validateSessionId } from './session-id.ts';

/** Throws `StoreRequestError` unless the stage request is well-formed (both engines check the same way). */
export function checkStageRequest(request: RestoreStageRequest): void {
  validateSessionId(request.sessionId);
  if (!isSeq(request.firstSeq)) throw new StoreRequestError('firstSeq must be a non-negative safe integer');
  const { bodies, times } = request;
  if (!Array.isArray(bodies) || bodies.length < 1 || bodies.length > MAX_RESTORE_STAGE_EVENTS) {
    throw new StoreRequestError(`a stage takes 1 to ${MAX_RESTORE_STAGE_EVENTS} events`);
  }
  if (!Array.isArray(times) || times.length !== bodies.length) {
    throw new StoreRequestError('a stage needs one commit time per body');
  }
  if (!bodies.every((body) => body instanceof Uint8Array && body.byteLength > 0)) {
    throw new StoreRequestError('a stored body must be a non-empty Uint8Array');
  }
  if (!times.every((time) => Number.isSafeInteger(time) && time >= 0)) {
    throw new StoreRequestError('a commit time must be a non-negative integer (epoch ms)');
  }
  if (!Number.isSafeInteger(request.ttlMs) || request.ttlMs < 1 || request.ttlMs > MAX_RESTORE_STAGE_TTL_MS) {
    throw new StoreRequestError(`ttlMs must be an integer from 1 to ${MAX_RESTORE_STAGE_TTL_MS}`);
  }
}

/** Throws `StoreRequestError` unless the swap request is well-formed. */
export function checkSwapRequest(request: RestoreSwapRequest): void {
  validateSessionId(request.sessionId);
  if (typeof request.epoch !== 'string' || request.epoch === '' || request.epoch.length > 64) {
    throw new StoreRequestError('a swap needs the epoch of the session (1 to 64 characters)');
  }
  const { maxCopy } = request;
  if (!Number.isSafeInteger(maxCopy) || maxCopy < 0 || maxCopy > MAX_RESTORE_SWAP_COPY) {
    throw new StoreRequestError(`maxCopy must be an integer from 0 to ${MAX_RESTORE_SWAP_COPY}`);
  }
}
