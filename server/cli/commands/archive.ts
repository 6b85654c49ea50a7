import { defineCommand, HUB_OPTIONS, HUB_OPTIONS_USAGE } from '../command.ts';
import { HubHttp } from '../hub-http.ts';
import { terminalLine } from '../terminal-text.ts';

const usage = `Usage: session-hub archive <sessionId> [options]

Archives a session's prefix now, on a hub started with --archive: its events up to the last turn boundary (and
at most the latest snapshot's seq + 1) are written to the archive, read back and compared, then trimmed from
Redis. Reads stay the same. Needs admin on the session. Exit 1 when the run could not archive (another node is
archiving it, the log changed during the run, the hot log was trimmed past the archive) or the hub has no
archive.

An archived session reads, catches up and takes appends as before; session-hub restore puts the prefix back.

Options:
${HUB_OPTIONS_USAGE}

Example:
  session-hub archive acme/run-7
`;

export const archiveCommand = defineCommand({
  name: 'archive',
  summary: 'archive a session now, then trim it from Redis (admin)',
  usage,
  options: { ...HUB_OPTIONS },
  argument: '<sessionId>',
  async run({ argument: sessionId, hub }, io) {
    const reply = await new HubHttp(hub()).archive(sessionId);
    const line = terminalLine(sessionId);
    if (reply.status === 'archived') {
      io.stderr.write(
        `archived ${line}: the hot log starts at seq ${reply.cut ?? 0} (${reply.appended ?? 0} events written)\n`,
      );
      return 0;
    }
    if (reply.status === 'idle') {
      io.stderr.write(`${line}: nothing to archive (archived already, empty, or inside its first turn)\n`);
      return 0;
    }
    const why = reply.reason === undefined ? '' : `: ${terminalLine(reply.reason)}`;
    io.stderr.write(`session-hub: ${line} not archived (${reply.status}${why})\n`);
    return 1;
  },
});
