import { defineCommand, HUB_OPTIONS, HUB_OPTIONS_USAGE } from '../command.ts';
import { HubHttp } from '../hub-http.ts';
import { RESTORE_LIMITS } from '../../archive/restore-run.ts';
import { terminalLine } from '../terminal-text.ts';

const usage = `Usage: session-hub restore <sessionId> [--force] [options]

Brings a session's archived prefix back into Redis (or the memory store), on a hub started with --archive, then
deletes its archive: the hot log holds the whole session from its first seq again (before turning the archive off,
moving to another archive backend, or to debug). Seqs, times, bodies, epoch and ids do not change; reads stay the
same; appends made meanwhile are kept. Redis needs room for the archived events plus a second copy of the hot log
while the restore runs (docs/operations.md, "Restoring an archived session"). Needs admin on the session.

A restore over the hub's limits is refused and changes nothing, unless --force: ${RESTORE_LIMITS.maxEvents} events,
${RESTORE_LIMITS.maxBytes / 1024 / 1024} MiB of archived bodies. Exit 1 when nothing was restored: over the limits, another node is
archiving or restoring it, the hot log was trimmed past the archive, the log changed during the run (the archive
stays), or the hub has no archive. A session with nothing archived exits 0.

Options:
      --force          restore whatever the size
${HUB_OPTIONS_USAGE}

Example:
  session-hub restore acme/run-7
`;

export const restoreCommand = defineCommand({
  name: 'restore',
  summary: "bring a session's archived prefix back into Redis, then delete its archive (admin)",
  usage,
  options: { ...HUB_OPTIONS, force: { type: 'boolean' } },
  argument: '<sessionId>',
  async run({ values, argument: sessionId, hub }, io) {
    const reply = await new HubHttp(hub()).restore(sessionId, { force: values.force === true });
    const line = terminalLine(sessionId);
    if (reply.status === 'restored') {
      const copied = reply.copied ? `, ${reply.copied} appended meanwhile` : '';
      io.stderr.write(
        `restored ${line}: the hot log starts at seq ${reply.firstSeq ?? 0} again (${reply.restored ?? 0} events, ` +
          `${reply.bytes ?? 0} bytes brought back${copied}); its archive is deleted\n`,
      );
      return 0;
    }
    if (reply.status === 'idle') {
      io.stderr.write(`${line}: nothing to restore (nothing archived)\n`);
      return 0;
    }
    if (reply.status === 'too-large') {
      io.stderr.write(
        `session-hub: ${line} not restored: ${reply.events ?? 0} events, ${reply.bytes ?? 0} bytes archived, over ` +
          `the hub's limits (${reply.maxEvents ?? 0} events, ${reply.maxBytes ?? 0} bytes); --force restores it\n`,
      );
      return 1;
    }
    const why = reply.reason === undefined ? '' : `: ${terminalLine(reply.reason)}`;
    io.stderr.write(`session-hub: ${line} not restored (${reply.status}${why})\n`);
    return 1;
  },
});
