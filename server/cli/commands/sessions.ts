import { HUB_OPTIONS, HUB_OPTIONS_USAGE, parseCommandArgs, type Command } from '../command.ts';
import { HubHttp } from '../hub-http.ts';
import { hubTarget } from '../hub-target.ts';

/** Heads asked for at once. */
const concurrency = 8;

const usage = `Usage: session-hub sessions [--prefix <p>] [--json] [options]

Lists the sessions of the hub, sorted, with each one's head seq (the seq of its last event; -1 when empty),
event count and watchers (clients subscribed now, on every node; - from a hub without presence). Needs admin on
every session (*), or with --prefix acme/ admin on acme/* (a tenant admin), plus read on the sessions.

Options:
  --prefix <p>         only the sessions whose id starts with <p> (must end with /, e.g. acme/)
  --json               one JSON object per line: {"sessionId", "headSeq", "events", "watchers"}
${HUB_OPTIONS_USAGE}

Example:
  session-hub sessions --prefix acme/
`;

export const sessionsCommand: Command = {
  name: 'sessions',
  summary: 'list sessions with their head seq (admin)',
  usage,
  async run(args, io) {
    const parsed = parseCommandArgs(args, { ...HUB_OPTIONS, prefix: { type: 'string' }, json: { type: 'boolean' } }, 0);
    if (parsed === 'help') {
      io.stdout.write(usage);
      return 0;
    }
    const http = new HubHttp(hubTarget(parsed.values, io.env));
    const ids = await http.list(parsed.values.prefix);
    const rows: { sessionId: string; headSeq: number; watchers: number | undefined }[] = new Array(ids.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < ids.length) {
        const index = next++;
        const sessionId = ids[index]!;
        const [{ headSeq }, watchers] = await Promise.all([http.head(sessionId), http.watchers(sessionId)]);
        rows[index] = { sessionId, headSeq, watchers };
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
    if (parsed.values.json === true) {
      for (const { sessionId, headSeq, watchers } of rows) {
        io.stdout.write(`${JSON.stringify({ sessionId, headSeq, events: headSeq + 1, watchers: watchers ?? null })}\n`);
      }
      return 0;
    }
    const width = Math.max('SESSION'.length, ...ids.map((id) => id.length));
    io.stdout.write(`${'SESSION'.padEnd(width)}  HEAD  EVENTS  WATCHERS\n`);
    for (const { sessionId, headSeq, watchers } of rows) {
      const columns = [
        String(headSeq).padStart(4),
        String(headSeq + 1).padStart(6),
        String(watchers ?? '-').padStart(8),
      ];
      io.stdout.write(`${sessionId.padEnd(width)}  ${columns.join('  ')}\n`);
    }
    return 0;
  },
};
