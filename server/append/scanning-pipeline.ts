import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';
import { auditDraft, bodiesDigest } from '../store/redaction-plan.ts';
import { AppendPipeline, type AppendInput, type AppendOutcome, type AppendPipelineDeps } from './pipeline.ts';
import type { EventDraft } from '../../shared/events.ts';
import type { SecretFinding, SecretScanner } from '../../shared/secret-scan.ts';

/** Who the audit events of scanning at append name. */
export const SECRET_SCAN_PRINCIPAL = 'secret-scan';

/**
 * The append pipeline with scanning at append (`serve --secrets`): each append's data is scanned before it is
 * queued. `reject`: an append holding a secret fails with SECRET_DETECTED and nothing is stored. `redact`: each
 * match is replaced by `[redacted]` before the append is validated, and its `audit/redaction` event (by
 * `secret-scan`, the patterns' names, the seqs, a digest of the removed matches) is committed right behind its
 * events in the same commit (the append's trailer: all or none, so a node dying cannot keep one without the
 * other). The ack names the append's own events only; a retry under the same idempotency key is a duplicate and
 * commits no second audit.
 */
export class ScanningPipeline extends AppendPipeline {
  readonly #scanner: SecretScanner;

  constructor(deps: AppendPipelineDeps, scanner: SecretScanner) {
    super(deps);
    this.#scanner = scanner;
  }

  override append(request: AppendInput, ready?: Promise<void>): Promise<AppendOutcome> {
    const finding = this.#scanner.scan(request.events);
    if (finding === undefined) return super.append(request, ready);
    const names = finding.names.join(', ');
    if (this.#scanner.mode === 'reject') {
      ready?.catch(() => undefined);
      const details = { patterns: names, index: finding.indexes[0]! };
      const message = `the append holds a secret (${names}); nothing was stored`;
      return Promise.reject(new HubError(HubErrorCode.SECRET_DETECTED, message, details));
    }
    return super.append({ ...request, events: finding.events, trailer: auditOf(finding) }, ready);
  }
}

/** The audit of a finding, once the seq of the append's first event is known. */
function auditOf(finding: SecretFinding): (firstSeq: number) => EventDraft {
  const reason = `secret detected at append (${finding.names.join(', ')})`;
  const digest = bodiesDigest(finding.removed.map((match) => new TextEncoder().encode(match)));
  return (firstSeq) =>
    auditDraft(
      SECRET_SCAN_PRINCIPAL,
      reason,
      finding.indexes.map((index) => firstSeq + index),
      digest,
    );
}
