import { hasLoneSurrogate } from '../../shared/check-helpers.ts';
import { isSeq } from '../../shared/protocol-parse.ts';
import { StoreRequestError } from './event-store.ts';
import {
  MAX_REDACTION_BY,
  MAX_REDACTION_REASON,
  MAX_REDACTION_SEQS,
  type RedactionRequest,
} from './redaction-store.ts';
import { validateSessionId } from './session-id.ts';

/** Throws `StoreRequestError` unless the request is within bounds; returns its seqs sorted, each once. */
export function checkRedactionRequest(request: RedactionRequest): number[] {
  validateSessionId(request.sessionId);
  const { seqs, reason, by } = request;
  if (!Array.isArray(seqs) || seqs.length === 0) throw new StoreRequestError('a redaction needs at least one seq');
  if (seqs.length > MAX_REDACTION_SEQS) {
    throw new StoreRequestError(`a redaction names at most ${MAX_REDACTION_SEQS} seqs`);
  }
  if (!seqs.every(isSeq)) throw new StoreRequestError('seqs must be non-negative safe integers');
  checkText(reason, MAX_REDACTION_REASON, 'reason');
  checkText(by, MAX_REDACTION_BY, 'by');
  return [...new Set(seqs)].sort((a, b) => a - b);
}

function checkText(value: string, max: number, name: string): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || hasLoneSurrogate(value)) {
    throw new StoreRequestError(`a redaction's ${name} must be well-formed text of 1 to ${max} characters`);
  }
}
