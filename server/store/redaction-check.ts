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
  const sorted = [...new Set(seqs)].sort((a, b) => a - b);
  checkArchived(request.archived, new Set(sorted));
  return sorted;
}

function checkArchived(archived: RedactionRequest['archived'], requested: ReadonlySet<number>): void {
  if (archived === undefined) return;
  if (!(archived instanceof Map) || archived.size > MAX_REDACTION_SEQS) {
    throw new StoreRequestError(`a redaction's archived bodies are a map of at most ${MAX_REDACTION_SEQS} seqs`);
  }
  for (const [seq, body] of archived) {
    if (!requested.has(seq) || !(body instanceof Uint8Array)) {
      throw new StoreRequestError('archived bodies belong to requested seqs');
    }
  }
}

function checkText(value: string, max: number, name: string): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || hasLoneSurrogate(value)) {
    throw new StoreRequestError(`a redaction's ${name} must be well-formed text of 1 to ${max} characters`);
  }
}
