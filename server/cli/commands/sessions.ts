import { defineCommand, HUB_OPTIONS, HUB_OPTIONS_USAGE } from '../command.ts';
import { HubHttp } from '../hub-http.ts';
import { terminalLine } from '../terminal-text.ts';

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

export const sessionsCommand = defineCommand({
  name: 'sessions',
  summary: 'list sessions with their head seq (admin)',
  usage,
  options: { ...HUB_OPTIONS, prefix: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, hub }, io) {
    const http = new HubHttp(hub());
    const ids = await http.list(values.prefix);
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
    if (values.json === true) {
      for (const { sessionId, headSeq, watchers } of rows) {
        io.stdout.write(`${JSON.stringify({ sessionId, headSeq, events: headSeq + 1, watchers: watchers ?? null })}\n`);
      }
      return 0;
    }
    // Ids as the hub sent them, escaped for the terminal (the JSON lines above carry them exactly).
    const shownIds = ids.map(terminalLine);
    const width = Math.max('SESSION'.length, ...shownIds.map((id) => id.length));
    io.stdout.write(`${'SESSION'.padEnd(width)}  HEAD  EVENTS  WATCHERS\n`);
    for (const [index, { headSeq, watchers }] of rows.entries()) {
      const columns = [
        String(headSeq).padStart(4),
        String(headSeq + 1).padStart(6),
        String(watchers ?? '-').padStart(8),
      ];
      io.stdout.write(`${shownIds[index]!.padEnd(width)}  ${columns.join('  ')}\n`);
    }
    return 0;
  },
});
