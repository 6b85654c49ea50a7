import { defineCommand, HUB_OPTIONS, HUB_OPTIONS_USAGE, parseIndex, UsageError } from '../command.ts';
import { HubHttp } from '../hub-http.ts';

const usage = `Usage: session-hub fork <sessionId> --at <seq> [--new-id <id>] [--repair] [--json] [options]

Forks a session: a new session whose events 0..<seq> are the source's (shared, not copied) and whose own
events follow. <seq> must be at a turn boundary; --repair forks inside a turn and closes it in the fork (an
error result for each unanswered call, then an interrupted turn end), as recover() does. Prints the new
session's id (with --json: the hub's whole answer). Needs read on the source and append on the new id.

Options:
      --at <seq>       the last seq the fork shares (required)
      --new-id <id>    the fork's id (default: a random one under the source's tenant prefix)
      --repair         fork inside a turn, closing it in the fork
      --json           print the hub's answer as JSON
${HUB_OPTIONS_USAGE}

Example:
  session-hub fork acme/run-7 --at 41 --new-id acme/run-7-retry
`;

export const forkCommand = defineCommand({
  name: 'fork',
  summary: 'fork a session at a seq (no copy)',
  usage,
  options: {
    ...HUB_OPTIONS,
    at: { type: 'string' },
    'new-id': { type: 'string' },
    repair: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  argument: '<sessionId>',
  async run({ values, argument: sessionId, hub }, io) {
    const atSeq = parseIndex('at', values.at);
    if (atSeq === undefined) throw new UsageError('--at <seq> is required');
    const newId = values['new-id'];
    const body = {
      atSeq,
      ...(newId === undefined ? {} : { newId }),
      ...(values.repair === true ? { repair: true } : {}),
    };
    const reply = await new HubHttp(hub()).fork(sessionId, body);
    if (values.json === true) io.stdout.write(`${JSON.stringify(reply)}\n`);
    else io.stdout.write(`${reply.sessionId}\n`);
    const repaired = reply.repaired > 0 ? `, ${reply.repaired} repair events` : '';
    const again = reply.duplicate ? ' (it existed: the same fork)' : '';
    io.stderr.write(`forked ${sessionId} at seq ${reply.forkSeq} into ${reply.sessionId}${repaired}${again}\n`);
    return 0;
  },
});
