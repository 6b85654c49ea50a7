import { createInterface } from 'node:readline/promises';
import type { ErasedSession } from '../../http/erasure.ts';
import type { SubjectErasureReply } from '../../http/subject-erasure.ts';
import {
  CliFailure,
  defineCommand,
  HUB_OPTIONS,
  HUB_OPTIONS_USAGE,
  UsageError,
  type CliIo,
  type Command,
} from '../command.ts';
import { HubHttp } from '../hub-http.ts';
import { terminalLine } from '../terminal-text.ts';

const usage = `Usage: session-hub erase <sessionId> --reason <text> [--yes] [options]
       session-hub erase (--created-by <subject> | --label <key=value>) [--prefix <p>/] --dry-run [options]
       session-hub erase (--created-by <subject> | --label <key=value>) [--prefix <p>/] --reason <text> --yes

Erases a session (POST /v1/sessions/:id/erasure): its events, epoch, idempotency keys, snapshot and metadata, and
its archived copy when the hub has a cold tier; its subscribers on every node are reset. The hub writes an audit
line (who, when, which session, the reason). With --created-by or --label, erases every session whose metadata
matches (POST /v1/erasures), a page at a time until none is left; --dry-run lists them and changes nothing.
Asks for confirmation on a terminal; elsewhere (scripts) --yes is required. Needs the redact grant (admins have
it) on the session, or on every session (on <p>/* with --prefix). Prints each session id on stdout (--json: one
JSON object per session). Exit 1 when an erasure failed.

Options:
  --reason <text>      why (the audit line's reason; at most 1024 characters); required but for --dry-run
  --created-by <sub>   subject erasure: sessions made by this token subject
  --label <key=value>  subject erasure: sessions with this label (both: sessions with both)
  --prefix <p>/        subject erasure: only sessions whose id starts with it
  --dry-run            subject erasure: list what would go, change nothing
  --json               one JSON object per session on stdout
  -y, --yes            do not ask
${HUB_OPTIONS_USAGE}

Examples:
  session-hub erase acme/run-7 --reason "ticket 4411" --yes
  session-hub erase --label userId=u-42 --dry-run
  session-hub erase --created-by alice --reason "right to erasure, ticket 4412" --yes
`;

const common = {
  ...HUB_OPTIONS,
  reason: { type: 'string' },
  json: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
} as const;

const oneSession = defineCommand({
  name: 'erase',
  summary: 'erase a session',
  usage,
  options: common,
  argument: '<sessionId>',
  async run({ values, argument: sessionId, hub }, io) {
    const reason = values.reason;
    if (reason === undefined) throw new UsageError('--reason is required (it goes into the audit line)');
    await confirmed(io, values.yes, `erase ${sessionId}, everything it holds, for good? [y/N] `);
    const erased = await new HubHttp(hub()).erase(sessionId, reason);
    io.stdout.write(values.json === true ? `${JSON.stringify(erased)}\n` : `${terminalLine(sessionId)}\n`);
    io.stderr.write(erased.erased ? `erased ${describe(erased)}\n` : `nothing left of ${terminalLine(sessionId)}\n`);
    return 0;
  },
});

const bySubject = defineCommand({
  name: 'erase',
  summary: 'erase the sessions of a subject',
  usage,
  options: {
    ...common,
    'created-by': { type: 'string' },
    label: { type: 'string' },
    prefix: { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
  async run({ values, hub }, io) {
    const dryRun = values['dry-run'] === true;
    if (!dryRun && values.reason === undefined) throw new UsageError('--reason is required (or --dry-run)');
    const match = {
      ...(values['created-by'] === undefined ? {} : { createdBy: values['created-by'] }),
      ...(values.label === undefined ? {} : { label: values.label }),
    };
    if (!dryRun) await confirmed(io, values.yes, `erase every session matching ${JSON.stringify(match)}? [y/N] `);
    const http = new HubHttp(hub());
    let after: string | undefined;
    let count = 0;
    let failures = 0;
    do {
      const page: SubjectErasureReply = await http.eraseSubject({
        match,
        dryRun,
        ...(values.reason === undefined ? {} : { reason: values.reason }),
        ...(values.prefix === undefined ? {} : { prefix: values.prefix }),
        ...(after === undefined ? {} : { after }),
      });
      for (const sessionId of page.sessions) {
        const erased = page.erased?.find((one) => one.sessionId === sessionId);
        io.stdout.write(
          values.json === true ? `${JSON.stringify(erased ?? { sessionId })}\n` : `${terminalLine(sessionId)}\n`,
        );
      }
      for (const failure of page.failed ?? []) {
        io.stderr.write(`session-hub: ${terminalLine(`${failure.sessionId}: ${failure.code}: ${failure.message}`)}\n`);
      }
      count += page.sessions.length - (page.failed?.length ?? 0);
      failures += page.failed?.length ?? 0;
      if (!dryRun) io.stderr.write(`erased ${count} session(s) so far\n`);
      // The cursor only moves forward: a hub answering the same `next` again would loop forever.
      if (page.next !== undefined && after !== undefined && page.next <= after) {
        throw new CliFailure('the hub answered a subject erasure with a cursor that does not move');
      }
      after = page.next;
    } while (after !== undefined);
    io.stderr.write(dryRun ? `${count} session(s) would be erased\n` : `erased ${count} session(s)\n`);
    if (failures === 0) return 0;
    io.stderr.write(`session-hub: ${failures} erasure(s) failed: run the same command again\n`);
    return 1;
  },
});

/** `session-hub erase`: one session by id, or a subject's sessions (--created-by / --label). */
export const eraseCommand: Command = {
  name: 'erase',
  summary: 'erase a session, or every session of a subject (--dry-run lists them)',
  usage,
  run(args, io) {
    const subject = args.some((arg) => /^--(created-by|label)(=|$)/.test(arg));
    return (subject ? bySubject : oneSession).run(args, io);
  },
};

function describe(erased: ErasedSession): string {
  const parts = [`${erased.events} event(s)`];
  if (erased.snapshot) parts.push('its snapshot');
  if (erased.metadata) parts.push('its metadata');
  return `${terminalLine(erased.sessionId)}: ${parts.join(', ')}`;
}

async function confirmed(io: CliIo, yes: boolean | undefined, question: string): Promise<void> {
  if (yes === true) return;
  if (io.stdin.isTTY !== true) throw new UsageError('not a terminal: pass --yes to erase without asking');
  const prompt = createInterface({ input: io.stdin, output: io.stderr });
  try {
    if (/^y(es)?$/i.test((await prompt.question(question)).trim())) return;
  } finally {
    prompt.close();
  }
  throw new UsageError('nothing erased');
}
