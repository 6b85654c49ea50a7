import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';
import { assertDraftSizes } from '../limits/event-size.ts';
import { LimitsConfigError } from '../limits/limits.ts';
import { auditDraft, bodiesDigest } from '../store/redaction-plan.ts';
import { AppendPipeline, type AppendInput, type AppendOutcome, type AppendPipelineDeps } from './pipeline.ts';
import type { AppendTrailer } from './group.ts';
import type { SecretFinding, SecretScanner } from '../../shared/secret-scan.ts';

/** Who the audit events of scanning at append name. */
export const SECRET_SCAN_PRINCIPAL = 'secret-scan';

/** A digest as `bodiesDigest` writes it (its length is all that matters for the size bound). */
const DIGEST_SHAPE = `sha256:${'0'.repeat(64)}`;

/**
 * The append pipeline with scanning at append (`serve --secrets`): each append's data is scanned before it is
 * queued. `reject`: an append holding a secret fails with SECRET_DETECTED and nothing is stored. `redact`: each
 * match is replaced by `[redacted]` before the append is validated, and its `audit/redaction` event (by
 * `secret-scan`, the patterns' names, the seqs, a digest of the removed matches) is committed right behind its
 * events in the same commit (the append's trailer: all or none, so a node dying cannot keep one without the
 * other). The ack names the append's own events, and with `trailerEvents: 1` the audit behind them (so a writer
 * numbering its appends moves past it); a retry under the same idempotency key is a duplicate, commits no second
 * audit, and its ack says `trailerEvents: 1` too (it is a duplicate only when its redacted events equal the stored
 * ones, so the commit it repeats was redacted and had its audit; one stored unscanned differs: IDEMPOTENCY_MISMATCH).
 *
 * Limits: the audit's size is bounded (its seqs at the widest), counted with the append's bytes in the group's
 * byte limit; and in `redact` mode the node refuses to start (`LimitsConfigError`) when the audit of an append of
 * `maxEventsPerAppend` redacted events, naming every pattern, could be above `maxEventBytes`.
 */
export class ScanningPipeline extends AppendPipeline {
  readonly #scanner: SecretScanner;

  constructor(deps: AppendPipelineDeps, scanner: SecretScanner) {
    super(deps);
    this.#scanner = scanner;
    if (scanner.mode !== 'redact') return;
    const { maxEventsPerAppend, maxEventBytes } = deps.limits;
    const widest = scanAuditMaxBytes(scanner.patternNames, maxEventsPerAppend);
    if (widest > maxEventBytes) {
      throw new LimitsConfigError(
        `--secrets redact: the audit of an append of ${maxEventsPerAppend} redacted events may be ${widest} bytes, ` +
          `above maxEventBytes (${maxEventBytes}); raise maxEventBytes or lower maxEventsPerAppend`,
      );
    }
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
    return super
      .append({ ...request, events: finding.events, trailer: auditOf(finding) }, ready)
      .then((outcome) => (outcome.duplicate ? { ...outcome, trailerEvents: 1 } : outcome));
  }
}

function reasonOf(names: readonly string[]): string {
  return `secret detected at append (${names.join(', ')})`;
}

/** The JSON size of a scan's audit naming `names` and `count` seqs, each as wide as a seq can be. */
export function scanAuditMaxBytes(names: readonly string[], count: number): number {
  const seqs = new Array<number>(count).fill(Number.MAX_SAFE_INTEGER);
  const draft = auditDraft(SECRET_SCAN_PRINCIPAL, reasonOf(names), seqs, DIGEST_SHAPE);
  return assertDraftSizes([draft], { maxEventBytes: Number.POSITIVE_INFINITY, maxEventDepth: 64 });
}

/** The audit of a finding, built once the seq of the append's first event is known, and its size bound. */
function auditOf(finding: SecretFinding): AppendTrailer {
  const reason = reasonOf(finding.names);
  const digest = bodiesDigest(finding.removed.map((match) => new TextEncoder().encode(match)));
  return {
    build: (firstSeq) =>
      auditDraft(
        SECRET_SCAN_PRINCIPAL,
        reason,
        finding.indexes.map((index) => firstSeq + index),
        digest,
      ),
    maxBytes: scanAuditMaxBytes(finding.names, finding.indexes.length),
  };
}
