import { toJsonl } from '../../../shared/index.ts';
import { defineCommand, HUB_OPTIONS, HUB_OPTIONS_USAGE } from '../command.ts';
import { HubHttp } from '../hub-http.ts';
import { openOutput } from '../output-file.ts';
import { progressBar } from '../progress.ts';
import { readPages } from '../session-reader.ts';
import { withRetries } from '../retry.ts';
import { metadataHeaderLine } from '../metadata-header.ts';

const usage = `Usage: session-hub export <sessionId> [-o <file>] [options]

Writes the whole log of a session as JSONL, one event per line (seq, type, time, data, surfaceOp,
sourceEventSeqs), to stdout or a file, after a first line with the session's metadata
({"kind":"session-hub/metadata","sessionId","metadata"}; left out when the hub has none). The log is read in pages (memory stays bounded) up to the head it had
when the export started. A progress bar is drawn on stderr when stderr is a terminal. Needs read on the session.

Options:
  -o, --output <file>  write to this file instead of stdout (it is replaced only when the export succeeds)
${HUB_OPTIONS_USAGE}

Example:
  session-hub export acme/run-7 -o run-7.jsonl
`;

export const exportCommand = defineCommand({
  name: 'export',
  summary: 'write a session log as JSONL (stdout or a file)',
  usage,
  options: { ...HUB_OPTIONS, output: { type: 'string', short: 'o' } },
  argument: '<sessionId>',
  async run({ values, argument: sessionId, hub }, io) {
    const http = new HubHttp(hub());
    const output = openOutput(values.output, io.stdout);
    const progress = progressBar(io.stderr, `export ${sessionId}`);
    let exported = 0;
    try {
      const metadata = await withRetries(() => http.metadata(sessionId), { unreachable: false });
      // The header goes out with the first page (or alone for a log with no events), so an export that cannot read
      // the log (GONE, expired) writes nothing at all.
      let header = metadata === undefined ? '' : metadataHeaderLine(sessionId, metadata);
      await readPages(http, sessionId, async (events, headSeq) => {
        if (exported === 0) progress.start(headSeq + 1);
        await output.write(header + toJsonl(events));
        header = '';
        exported += events.length;
        progress.update(exported);
      });
      if (header !== '') await output.write(header);
      await output.end();
    } catch (error) {
      progress.stop();
      await output.abort();
      throw error;
    }
    progress.stop();
    const where = values.output === undefined ? '' : ` to ${values.output}`;
    io.stderr.write(`exported ${exported} events of ${sessionId}${where}\n`);
    return 0;
  },
});
