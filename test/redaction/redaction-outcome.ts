// What the redaction fault tests share (test/redaction/redact-sigkill.test.ts, test/cluster/redact-failover.test.ts):
// a session with three secrets, the redaction of their seqs over HTTP, and what every read path of a node shows of
// it: all of them redacted with one audit event, or none.
import { expect } from 'vitest';
import { REDACTED_TEXT, REDACTION_AUDIT_TYPE } from '../../shared/redaction.ts';
import type { SessionEvent } from '../../shared/index.ts';
import { sessionPath, wsCatchUp } from '../archive/hub-reads.ts';

/** A hub node as these tests reach it (in process or a child). */
export interface NodeUrls {
  readonly url: string;
  readonly wsUrl: string;
}

export const SECRETS = ['sk-live-AAAA1111', 'sk-live-BBBB2222', 'sk-live-CCCC3333'];
export const SEQS = [0, 2, 4];

export function seed(sessionId: string) {
  return {
    sessionId,
    expectedSeq: 0,
    events: SECRETS.flatMap((secret, index) => [
      { type: 'user/message', data: { role: 'user', content: `key ${secret}` }, surfaceOp: 'append' as const },
      { type: 'app/note', data: { text: `harmless ${index}` } },
    ]),
  };
}

/** POST the redaction of SEQS; the reply, or the error the caller got (the node died before answering). */
export async function redact(node: NodeUrls, sessionId: string): Promise<Response | Error> {
  return fetch(`${node.url}${sessionPath(sessionId)}/redactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ seqs: SEQS, reason: 'leaked keys' }),
  }).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
}

export type Outcome = 'all' | 'none';

/**
 * What every read path of `node` shows of the session: 'all' (no secret, each requested seq a placeholder, exactly
 * one audit event naming them) or 'none' (every secret, no audit); anything else fails the test.
 */
export async function outcomeOn(node: NodeUrls, sessionId: string): Promise<Outcome> {
  const page = await fetch(`${node.url}${sessionPath(sessionId)}/events?from=0&limit=1000`);
  expect(page.status).toBe(200);
  const pageText = await page.text();
  const { events, errors } = await wsCatchUp(node, sessionId);
  expect(errors).toEqual([]);
  expect(JSON.parse(events)).toEqual((JSON.parse(pageText) as { events: SessionEvent[] }).events);
  const snapshot = await fetch(`${node.url}${sessionPath(sessionId)}/snapshot`);
  const snapshotText = snapshot.status === 200 ? await snapshot.text() : '';
  const log = (JSON.parse(pageText) as { events: SessionEvent[] }).events;
  const audits = log.filter((event) => event.type === REDACTION_AUDIT_TYPE);
  const left = SECRETS.filter((secret) => pageText.includes(secret));
  if (left.length === SECRETS.length && audits.length === 0) {
    return 'none';
  }
  expect(left).toEqual([]);
  expect(audits).toHaveLength(1);
  expect(audits[0]!.data).toMatchObject({ seqs: SEQS });
  for (const seq of SEQS) expect(log[seq]!.data).toMatchObject({ content: REDACTED_TEXT });
  for (const secret of SECRETS) expect(snapshotText).not.toContain(secret);
  return 'all';
}
