/** Most seqs one redaction may name. */
export const MAX_REDACTION_SEQS = 10_000;
/** Longest reason of a redaction, in UTF-16 code units. */
export const MAX_REDACTION_REASON = 1024;
/** Longest principal name recorded in the audit event. */
export const MAX_REDACTION_BY = 256;

export interface RedactionRequest {
  readonly sessionId: string;
  /** The seqs whose data to replace by placeholders (any order; repeats count once). */
  readonly seqs: readonly number[];
  /** Why (recorded in the audit event): 1 to `MAX_REDACTION_REASON` characters. */
  readonly reason: string;
  /** Who asks (recorded in the audit event): the principal's subject. */
  readonly by: string;
  /** Redact only in this epoch (else `conflict`, nothing changed). Omitted: the current one. */
  readonly expectedEpoch?: string;
  /**
   * The original bodies of requested seqs that a cold tier held and the caller (the tiered store) already replaced
   * there: the audit event names and digests them with the store's own, and is written (with a new epoch) even
   * when the store itself changes nothing. At most `MAX_REDACTION_SEQS`.
   */
  readonly archived?: ReadonlyMap<number, Uint8Array>;
}

export type RedactionResult =
  | {
      /**
       * Every requested seq the store holds now carries its placeholder. When `seqs` is not empty the log was
       * rewritten in one atomic step: those events got their placeholders, the audit event was appended at
       * `auditSeq`, the snapshot was dropped and the session got a new `epoch` (so every cache, snapshot build and
       * subscriber positioned in the old one re-reads). When `seqs` is empty nothing was written (a retry).
       */
      readonly status: 'redacted';
      readonly epoch: string;
      /** The seqs whose data this call replaced, ascending. */
      readonly seqs: readonly number[];
      /** Requested seqs that already held their placeholder (redacted before, or nothing to remove). */
      readonly unchanged: readonly number[];
      /**
       * Requested seqs below the first event the store holds: not changed here. The tiered store redacts those its
       * archive holds (and lists them in `seqs`); what it reports here no tier holds.
       */
      readonly cold: readonly number[];
      /** The audit event's seq; undefined when nothing was written. */
      readonly auditSeq: number | undefined;
    }
  | {
      /** The session's epoch is not `expectedEpoch`: nothing changed. */
      readonly status: 'conflict';
      readonly epoch: string;
    }
  | {
      /** Some seqs are beyond the head (or the session has no events): nothing changed. */
      readonly status: 'out-of-range';
      readonly epoch: string;
      readonly headSeq: number;
      readonly seqs: readonly number[];
    };

/**
 * Redaction (docs/security.md#redaction): replaces the data of some events of a session by placeholders of a valid
 * shape for their type (`shared/redaction.ts`), keeping each event's seq, type, time, surface op and sources, and
 * appends an `audit/redaction` event, all in one atomic step. Once `redact` resolves `redacted`, no read of the
 * store returns the original bodies.
 */
export interface RedactionStore {
  redact(request: RedactionRequest): Promise<RedactionResult>;
  /**
   * The epochs `epoch` replaced by redactions, most recent first (at most `MAX_PRIOR_EPOCHS`): a reader positioned
   * in one of them (a fork's prefix, an archived prefix) reads the same seqs in `epoch`, redacted. Empty when
   * `epoch` was not made by a redaction. Deleted with the session.
   */
  priorEpochs(sessionId: string, epoch: string): Promise<readonly string[]>;
}

/** Most redaction epochs `priorEpochs` follows back. */
export const MAX_PRIOR_EPOCHS = 64;
