// The audit of a redaction at append (`--secrets redact`) is held to the append limits (issue #30): its size is
// bounded (its seqs at the widest), a node whose `maxEventBytes` could not hold the audit of a full append refuses to
// start, and the audit of a full append of redacted events stays within `maxEventBytes`.
import { afterEach, describe, expect } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { createHub } from '../../server/hub.ts';
import { LimitsConfigError } from '../../server/limits/limits.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { scanAuditMaxBytes } from '../../server/append/scanning-pipeline.ts';
import { SecretScanner } from '../../shared/secret-scan.ts';
import { isRedactionAudit } from '../../shared/redaction.ts';
import { test as it } from '../helpers/fixtures.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const EVENTS = 50;
const SECRETS = [
  'AKIAIOSFODNN7EXAMPLE',
  'sk-live0123456789abcdefghijKLMN',
  `ghp_${'a1B2'.repeat(9)}`,
  'Bearer abcdefghijklmnop0123',
  '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
];
/** The bound of the audit of `EVENTS` redacted events naming every built-in pattern. */
const bound = scanAuditMaxBytes(new SecretScanner({ mode: 'redact' }).patternNames, EVENTS);
const utf8 = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('the audit of a redaction at append within the append limits', () => {
  let hub: TestHub | undefined;
  afterEach(async () => {
    await hub?.close();
    hub = undefined;
  });

  it('refuses to start when the audit of a full append could pass maxEventBytes', async () => {
    const limits = { maxEventsPerAppend: EVENTS, maxEventBytes: bound - 1 };
    expect(() => createHub({ store: new MemoryStore(), secrets: { mode: 'redact' }, limits })).toThrow(
      LimitsConfigError,
    );
    // `reject` commits no audit: nothing to bound.
    const rejecting = createHub({ store: new MemoryStore(), secrets: { mode: 'reject' }, limits });
    await rejecting.close();
  });

  it('commits the audit of a full append of redacted events within maxEventBytes', async () => {
    const store = new MemoryStore();
    hub = await startHub({
      store,
      secrets: { mode: 'redact' },
      limits: { maxEventsPerAppend: EVENTS, maxEventBytes: bound },
    });
    const client = new HubClient({ url: hub.wsUrl });
    try {
      const drafts = Array.from({ length: EVENTS }, (_, index) => ({
        type: 'app/note',
        data: { text: `value ${SECRETS[index % SECRETS.length]!}` },
      }));
      const committed = await client.append('limits/audit', drafts);
      expect(committed).toHaveLength(EVENTS);
      const [audit] = (await store.read('limits/audit', EVENTS, 1)).filter(isRedactionAudit);
      expect(audit?.data.seqs).toHaveLength(EVENTS);
      expect(audit?.data.reason).toContain('private-key');
      expect(utf8({ type: audit!.type, data: audit!.data })).toBeLessThanOrEqual(bound);
    } finally {
      client.close();
    }
  });
});
