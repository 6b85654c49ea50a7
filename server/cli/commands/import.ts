import { readFile } from 'node:fs/promises';
import { buffer as streamBytes } from 'node:stream/consumers';
import type { SessionEvent } from '../../../shared/index.ts';
import { CliFailure, defineCommand, HUB_OPTIONS, HUB_OPTIONS_USAGE, UsageError } from '../command.ts';
import { HubHttp } from '../hub-http.ts';
import { importBatches, planImport, type ImportBatch } from '../import-plan.ts';
import { progressBar } from '../progress.ts';
import { withRetries } from '../retry.ts';
import { readPages } from '../session-reader.ts';
import { decodeUtf8 } from '../utf8-text.ts';
import { takeMetadataHeader } from '../metadata-header.ts';

/** Per append: well under the hub's default limits (1,000 events, 1 MiB frames). */
const batchLimits = { maxEvents: 200, maxBytes: 512 * 1024 };

const usage = `Usage: session-hub import <file|-> --session <id> [--append] [options]

Appends the events of a JSONL log (as written by export; - reads stdin) to a session, keeping each event's
original time, and sets the title and labels of the export's metadata header line (if any) once they are in. The whole file is validated first (seqs, event shapes, surface rules, the lifecycle rules, times
that never go back and are not in the future): a bad line is reported with its number and nothing is sent. Events are then sent
in appends whose idempotency keys derive from their content, so running an interrupted import again finishes
it without duplicates. A target that already holds other events is refused unless --append, and then the file
must continue its log (the file's first seq is where it joins). Needs append and admin on the session (keeping
the original times is an admin-only import mode). A progress bar is drawn on stderr when it is a terminal.

Options:
  --session <id>       the session to import into (required)
  --append             the target is not empty: the file continues its log
  --no-lifecycle-check skip the turn/step/tool-call rules (for a hub started with --lifecycle off)
${HUB_OPTIONS_USAGE}

Example:
  session-hub export acme/run-7 --url http://old-hub:8080 | session-hub import - --session acme/run-7
`;

export const importCommand = defineCommand({
  name: 'import',
  summary: 'append a JSONL log to a session, keeping its times (resumable)',
  usage,
  options: {
    ...HUB_OPTIONS,
    session: { type: 'string' },
    append: { type: 'boolean' },
    'no-lifecycle-check': { type: 'boolean' },
  },
  argument: '<file> (or - for stdin)',
  async run({ values, argument: file, hub }, io) {
    const sessionId = values.session;
    if (sessionId === undefined) throw new UsageError('missing --session <id>');
    const { text, patch } = takeMetadataHeader(await readInput(file, io.stdin));
    const http = new HubHttp(hub());
    const target: SessionEvent[] = [];
    await readPages(http, sessionId, (events) => {
      target.push(...events);
    });
    const plan = planImport(text, target, {
      append: values.append === true,
      now: Date.now(),
      lifecycle: values['no-lifecycle-check'] !== true,
    });
    const batches = importBatches(plan.events.slice(plan.start), batchLimits);
    const progress = progressBar(io.stderr, `import ${sessionId}`);
    progress.start(plan.events.length, plan.start);
    let sent = plan.start;
    try {
      for (const batch of batches) {
        await sendBatch(http, sessionId, batch);
        sent += batch.events.length;
        progress.update(sent);
      }
    } finally {
      progress.stop();
    }
    // The export's metadata header: its title and labels (creation time comes with the events' times).
    if (patch !== undefined && (patch.title !== undefined || Object.keys(patch.labels ?? {}).length > 0)) {
      await withRetries(() => http.setMetadata(sessionId, patch), { unreachable: true });
    }
    const resumed = plan.start === 0 ? '' : ` (${plan.start} were already there)`;
    io.stderr.write(`imported ${plan.events.length - plan.start} events into ${sessionId}${resumed}\n`);
    return 0;
  },
});

/** The file (or stdin) as text; invalid UTF-8 is refused with its line number, before anything is sent. */
async function readInput(file: string, stdin: NodeJS.ReadStream): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = file === '-' ? await streamBytes(stdin) : await readFile(file);
  } catch (error) {
    throw new CliFailure(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return decodeUtf8(bytes);
}

/** Send one append (its key makes a retry safe), retrying while the hub cannot take it yet. */
async function sendBatch(http: HubHttp, sessionId: string, batch: ImportBatch): Promise<void> {
  const firstSeq = batch.events[0]!.seq;
  const lastSeq = firstSeq + batch.events.length - 1;
  const body = {
    events: batch.events.map(({ type, data, surfaceOp, sourceEventSeqs }) => ({
      type,
      data,
      surfaceOp,
      sourceEventSeqs,
    })),
    expectedSeq: firstSeq,
    idempotencyKey: batch.idempotencyKey,
    time: batch.time,
  };
  const ack = await withRetries(() => http.append(sessionId, body), { unreachable: true }).catch((error: unknown) => {
    const shown = error instanceof Error ? error.message : String(error);
    throw new CliFailure(`events ${firstSeq}..${lastSeq} were not imported: ${shown}`, { cause: error });
  });
  if (ack.firstSeq !== firstSeq || ack.lastSeq !== lastSeq) {
    throw new CliFailure(`the hub stored events ${firstSeq}..${lastSeq} at ${ack.firstSeq}..${ack.lastSeq}`);
  }
}
