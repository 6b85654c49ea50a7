import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';
import { auditDraft, bodiesDigest } from '../store/redaction-plan.ts';
import { AppendPipeline, type AppendInput, type AppendOutcome, type AppendPipelineDeps } from './pipeline.ts';
import type { SecretFinding, SecretScanner } from '../../shared/secret-scan.ts';

/** Who the audit events of scanning at append name. */
export const SECRET_SCAN_PRINCIPAL = 'secret-scan';

/**
 * The append pipeline with scanning at append (`serve --secrets`): each append's data is scanned before it is
 * queued. `reject`: an append holding a secret fails with SECRET_DETECTED and nothing is stored. `redact`: each
 * match is replaced by `[redacted]` before the append is validated and committed, and once it committed an
 * `audit/redaction` event (by `secret-scan`, the patterns' names, the seqs, a digest of the removed matches) is
 * appended behind it under an idempotency key of its own.
 */
export class ScanningPipeline extends AppendPipeline {
  readonly #scanner: SecretScanner;
  readonly #deps: AppendPipelineDeps;

  constructor(deps: AppendPipelineDeps, scanner: SecretScanner) {
    super(deps);
    this.#deps = deps;
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
    return super.append({ ...request, events: finding.events }, ready).then((outcome) => {
      if (!outcome.duplicate) this.#audit(request.sessionId, outcome, finding);
      return outcome;
    });
  }

  #audit(sessionId: string, outcome: AppendOutcome, finding: SecretFinding): void {
    const seqs = finding.indexes.map((index) => outcome.firstSeq + index);
    const reason = `secret detected at append (${finding.names.join(', ')})`;
    const digest = bodiesDigest(finding.removed.map((match) => new TextEncoder().encode(match)));
    const draft = auditDraft(SECRET_SCAN_PRINCIPAL, reason, seqs, digest);
    super
      .append({
        sessionId,
        events: [draft],
        keyOwner: SECRET_SCAN_PRINCIPAL,
        idempotencyKey: `audit:${outcome.epoch}:${outcome.firstSeq}`,
      })
      .catch((error: unknown) => {
        this.#deps.logger.warn({ err: error, sessionId, seqs }, 'could not append the audit of a redacted append');
      });
  }
}
