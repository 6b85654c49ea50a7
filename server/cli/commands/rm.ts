import { createInterface } from 'node:readline/promises';
import { defineCommand, HUB_OPTIONS, HUB_OPTIONS_USAGE, UsageError, type CliIo } from '../command.ts';
import { HubHttp } from '../hub-http.ts';

const usage = `Usage: session-hub rm <sessionId> [--yes] [options]

Deletes a session: its events, epoch and idempotency keys. Its subscribers on every node are reset and the
log starts over at seq 0. Asks for confirmation on a terminal; elsewhere (scripts) --yes is required. Needs
admin on the session. Exit 1 when there was no such session.

Options:
  -y, --yes            do not ask
${HUB_OPTIONS_USAGE}

Example:
  session-hub rm acme/run-7 --yes
`;

export const rmCommand = defineCommand({
  name: 'rm',
  summary: 'delete a session (admin)',
  usage,
  options: { ...HUB_OPTIONS, yes: { type: 'boolean', short: 'y' } },
  argument: '<sessionId>',
  async run({ values, argument: sessionId, hub }, io) {
    const http = new HubHttp(hub());
    if (values.yes !== true) {
      if (io.stdin.isTTY !== true) throw new UsageError('not a terminal: pass --yes to delete without asking');
      const { headSeq } = await http.head(sessionId);
      if (!(await confirm(io, `delete ${sessionId} and its ${headSeq + 1} events? [y/N] `))) {
        io.stderr.write('nothing deleted\n');
        return 1;
      }
    }
    if (!(await http.remove(sessionId))) {
      io.stderr.write(`session-hub: no session ${sessionId}\n`);
      return 1;
    }
    io.stderr.write(`deleted ${sessionId}\n`);
    return 0;
  },
});

async function confirm(io: CliIo, question: string): Promise<boolean> {
  const prompt = createInterface({ input: io.stdin, output: io.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}
