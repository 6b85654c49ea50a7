import { defineCommand, HUB_OPTIONS, HUB_OPTIONS_USAGE, UsageError } from '../command.ts';
import { HubHttp, type ListQuery } from '../hub-http.ts';
import { terminalLine } from '../terminal-text.ts';
import type { SessionListItem } from '../../http/session-listing.ts';

/** Presence lookups at once. */
const concurrency = 8;
/** Rows asked per page of `GET /v1/sessions`. */
const pageSize = 500;

const usage = `Usage: session-hub sessions [--prefix <p>] [--label <k=v>…] [--limit <n>] [--json] [options]

Lists the sessions of the hub, most recently active first, with each one's head seq (the seq of its last event;
-1 when empty), last activity, title, labels and watchers (clients subscribed now, on every node; - from a hub
without presence). Needs admin on every session (*), or with --prefix acme/ admin on acme/* (a tenant admin), plus
read on the sessions.

Options:
  --prefix <p>         only the sessions whose id starts with <p> (must end with /, e.g. acme/)
  --label <k=v>        only sessions with label k set to v (or, as --label k, with label k); repeatable (all must match)
  --limit <n>          at most <n> sessions (default: all)
  --json               one JSON object per line: {"sessionId", "tier", "headSeq", "events", "createdAt",
                       "lastActivity", "bytes", "title", "labels", "watchers"}
${HUB_OPTIONS_USAGE}

Example:
  session-hub sessions --prefix acme/ --label team=red --limit 20
`;

function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1) throw new UsageError(`--limit must be a positive integer, got ${text}`);
  return limit;
}

/** Pages through the listing until `limit` rows (or the end). */
async function listAll(http: HubHttp, query: ListQuery, limit: number | undefined): Promise<SessionListItem[]> {
  const rows: SessionListItem[] = [];
  let after: string | undefined;
  do {
    const wanted = limit === undefined ? pageSize : Math.min(pageSize, limit - rows.length);
    const page = await http.list({ ...query, limit: wanted, after });
    rows.push(...page.sessions);
    after = page.next;
  } while (after !== undefined && (limit === undefined || rows.length < limit));
  return rows;
}

const time = (ms: number | undefined): string => (ms === undefined ? '-' : new Date(ms).toISOString().slice(0, 19));

const labelText = (labels: Readonly<Record<string, string>>): string =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');

export const sessionsCommand = defineCommand({
  name: 'sessions',
  summary: 'list sessions, most recently active first, with head, title and labels (admin)',
  usage,
  options: {
    ...HUB_OPTIONS,
    prefix: { type: 'string' },
    label: { type: 'string', multiple: true },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values, hub }, io) {
    const http = new HubHttp(hub());
    const limit = parseLimit(values.limit);
    const rows = await listAll(http, { prefix: values.prefix, labels: values.label }, limit);
    const watchers: (number | undefined)[] = new Array(rows.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < rows.length) {
        const index = next++;
        watchers[index] = await http.watchers(rows[index]!.id);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, worker));
    if (values.json === true) {
      for (const [index, row] of rows.entries()) {
        const { id: sessionId, tier, headSeq, createdAt, lastActivity, bytes, title, labels } = row;
        const line = { sessionId, tier, headSeq, events: headSeq + 1, createdAt, lastActivity, bytes, title, labels };
        io.stdout.write(`${JSON.stringify({ ...line, watchers: watchers[index] ?? null })}\n`);
      }
      return 0;
    }
    // Ids, titles and labels as the hub sent them, escaped for the terminal (the JSON lines carry them exactly).
    const shownIds = rows.map((row) => terminalLine(row.id));
    const width = Math.max('SESSION'.length, ...shownIds.map((id) => id.length));
    io.stdout.write(`${'SESSION'.padEnd(width)}  HEAD  EVENTS  LAST ACTIVITY (UTC)  WATCHERS  TITLE  LABELS\n`);
    for (const [index, row] of rows.entries()) {
      const columns = [
        String(row.headSeq).padStart(4),
        String(row.headSeq + 1).padStart(6),
        time(row.lastActivity).padEnd(19),
        String(watchers[index] ?? '-').padStart(8),
        terminalLine(String(row.title ?? '-')),
        terminalLine(labelText(row.labels ?? {})),
      ];
      io.stdout.write(`${shownIds[index]!.padEnd(width)}  ${columns.join('  ')}\n`);
    }
    return 0;
  },
});
