import { defineCommand, HUB_OPTIONS, HUB_OPTIONS_USAGE, UsageError } from '../command.ts';
import { HubHttp } from '../hub-http.ts';

/** Most seqs one `--seq A-B` range may name (the hub takes at most 10 000 per redaction). */
const MAX_RANGE = 10_000;

const usage = `Usage: session-hub redact <sessionId> --seq <n> [--seq <n>|<a-b> ...] --reason <text> [options]

Redacts events of a session: each one keeps its seq, type, time and pairing, its data is replaced by a
placeholder ("[redacted]" for text), and an audit/redaction event (who, why, which seqs, a digest of the removed
bytes) is appended. Live subscribers are reset onto the redacted log. Needs the redact grant (admins have it).
Prints the hub's answer as JSON. A retry changes nothing. Redis persistence files still hold the old bytes until
"session-hub redis-purge" (docs/security.md#redaction).

Options:
  --seq <n|a-b>        a seq, or a range of seqs (repeat the flag for more)
  --reason <text>      why (recorded in the audit event; at most 1024 characters)
${HUB_OPTIONS_USAGE}

Example:
  session-hub redact acme/run-7 --seq 12 --seq 14-15 --reason "API key in tool output"
`;

/** The seqs of `--seq` values (`12`, `14-15`), each checked. */
export function parseSeqFlags(texts: readonly string[]): number[] {
  const seqs: number[] = [];
  for (const text of texts) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(text);
    const first = Number(match?.[1]);
    const last = match?.[2] === undefined ? first : Number(match[2]);
    if (match === null || !Number.isSafeInteger(first) || !Number.isSafeInteger(last) || last < first) {
      throw new UsageError(`--seq must be a seq or a range a-b, got ${JSON.stringify(text)}`);
    }
    if (last - first >= MAX_RANGE) throw new UsageError(`--seq ${text}: at most ${MAX_RANGE} seqs per range`);
    for (let seq = first; seq <= last; seq++) seqs.push(seq);
  }
  return seqs;
}

export const redactCommand = defineCommand({
  name: 'redact',
  summary: 'replace event data by placeholders, audited (redact grant)',
  usage,
  options: { ...HUB_OPTIONS, seq: { type: 'string', multiple: true }, reason: { type: 'string' } },
  argument: '<sessionId>',
  async run({ values, argument: sessionId, hub }, io) {
    const seqs = parseSeqFlags(values.seq ?? []);
    if (seqs.length === 0) throw new UsageError('name at least one --seq');
    if (values.reason === undefined) throw new UsageError('--reason is required (it goes into the audit event)');
    const reply = await new HubHttp(hub()).redact(sessionId, seqs, values.reason);
    io.stdout.write(`${JSON.stringify(reply)}\n`);
    const done = reply.seqs.length === 0 ? 'nothing to change (already redacted)' : `redacted ${reply.seqs.join(', ')}`;
    io.stderr.write(
      `${done}${reply.cold.length > 0 ? `; below the first kept seq (not changed): ${reply.cold.join(', ')}` : ''}\n`,
    );
    return 0;
  },
});
