// Scanning at append (`serve --secrets`): hubs on memory stores with each mode, appends over HTTP and the SDK.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { REDACTED_TEXT, REDACTION_AUDIT_TYPE } from '../../shared/redaction.ts';
import { SecretScanner, secretPatternProblem } from '../../shared/secret-scan.ts';
import { Session } from '../../shared/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { runCli } from '../cli/run-cli.ts';

const AWS = 'AKIAIOSFODNN7EXAMPLE';
const KEY = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----';
const WAIT = { timeout: 10_000, interval: 10 };

describe('scanning at append', () => {
  const hubs: { store: MemoryStore; hub: TestHub }[] = [];
  const clients: HubClient[] = [];
  let reject: { store: MemoryStore; hub: TestHub };
  let redact: { store: MemoryStore; hub: TestHub };

  beforeAll(async () => {
    for (const mode of ['reject', 'redact'] as const) {
      const store = new MemoryStore();
      const hub = await startHub({ store, secrets: { mode, patterns: ['cust-[0-9]{6}'] } });
      hubs.push({ store, hub });
    }
    [reject, redact] = hubs as [typeof reject, typeof redact];
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    for (const { hub, store } of hubs) {
      await hub.close();
      await store.close();
    }
  });

  const post = (hub: TestHub, sessionId: string, events: object[]) =>
    fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    });

  it('reject: refuses an append holding a secret with SECRET_DETECTED (422) and stores nothing', async () => {
    const response = await post(reject.hub, 's/reject', [
      { type: 'user/message', data: { role: 'user', content: 'fine' } },
      { type: 'app/note', data: { nested: [{ k: `id cust-123456 and ${AWS}` }] } },
    ]);
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { code: string; message: string; details: object } };
    expect(body.error).toMatchObject({ code: 'SECRET_DETECTED', details: { index: 1 } });
    expect(JSON.stringify(body)).not.toContain(AWS);
    expect(await reject.store.head('s/reject')).toEqual({ epoch: '', headSeq: -1 });
    const client = new HubClient({ url: reject.hub.wsUrl });
    clients.push(client);
    await expect(
      client.append('s/reject', { type: 'app/note', data: { t: `Bearer ${'x'.repeat(30)}` } }),
    ).rejects.toMatchObject({
      code: 'SECRET_DETECTED',
    });
    await client.append('s/reject', { type: 'app/note', data: { t: 'nothing here' } });
    expect((await reject.store.head('s/reject')).headSeq).toBe(0);
  });

  it('redact: stores the append with each match replaced, acks the writer its own seqs, with the audit in the same commit', async () => {
    const sessionId = 's/redact';
    const client = new HubClient({ url: redact.hub.wsUrl });
    clients.push(client);
    const committed = await client.append(sessionId, [
      { type: 'user/message', data: { role: 'user', content: `key ${AWS} ok` } },
      { type: 'app/note', data: { note: 'clean' } },
      { type: 'app/note', data: { pem: KEY, id: 'cust-654321' } },
    ]);
    expect(committed.map((event) => event.seq)).toEqual([0, 1, 2]);
    await vi.waitFor(async () => expect((await redact.store.head(sessionId)).headSeq).toBe(3), WAIT);
    const log = await redact.store.read(sessionId, 0, 10);
    expect(JSON.stringify(log)).not.toContain(AWS);
    expect(JSON.stringify(log)).not.toContain('MIIEowIBAAKCAQEA7');
    expect(JSON.stringify(log)).not.toContain('cust-654321');
    expect(log[0]!.data).toEqual({ role: 'user', content: `key ${REDACTED_TEXT} ok` });
    expect(log[2]!.data).toEqual({ pem: REDACTED_TEXT, id: REDACTED_TEXT });
    expect(log[3]).toMatchObject({
      type: REDACTION_AUDIT_TYPE,
      data: { by: 'secret-scan', seqs: [0, 2], digest: expect.stringMatching(/^sha256:/) },
    });
    expect((log[3]!.data as { reason: string }).reason).toContain('aws-access-key');
    expect(() => Session.fromLog(log)).not.toThrow();
  });

  it('bounds user patterns: no nested quantifiers, alternation repeats or backreferences; linear on hostile text', () => {
    expect(secretPatternProblem('(a+)+$')).toMatch(/nests/);
    expect(secretPatternProblem('(a|aa)*b')).toMatch(/alternation/);
    expect(secretPatternProblem('(x)\\1')).toMatch(/backreference/);
    expect(secretPatternProblem('x'.repeat(300))).toBeDefined();
    expect(secretPatternProblem('[')).toMatch(/regular expression/);
    expect(secretPatternProblem('tok_[a-z0-9]{8,64}')).toBeUndefined();
    const scanner = new SecretScanner({ mode: 'redact', patterns: ['tok_[a-z0-9]{8,64}'] });
    // Many private-key headers without a footer, and near-misses of every pattern: one pass each.
    const hostile = '-----BEGIN PRIVATE KEY-----'.repeat(20_000) + 'AKIA'.repeat(50_000) + 'sk-'.repeat(50_000);
    const found = scanner.scan([{ type: 'app/note', data: { hostile } }]);
    expect(found?.names).toContain('private-key');
  });

  it('serve refuses bad --secrets values and unsafe patterns', async () => {
    expect((await runCli(['serve', '--secrets', 'maybe'])).code).toBe(2);
    const unsafe = await runCli(['serve', '--secrets', 'reject', '--secret-pattern', '(a+)+']);
    expect(unsafe.code).toBe(2);
    expect(unsafe.stderr).toContain('nests quantifiers');
    expect((await runCli(['serve', '--secret-pattern', 'abc'])).code).toBe(2);
  });
});
