import { HubClient, type HubClientError } from '../../../client/index.ts';
import { toJsonl, type DerivedMessage, type SessionEvent } from '../../../shared/index.ts';
import type { ProjectionChange } from '../../../shared/index.ts';
import { defineCommand, HUB_OPTIONS, HUB_OPTIONS_USAGE, parseIndex, UsageError, type CliIo } from '../command.ts';
import { eventLine, messageLines, streamedText } from '../event-format.ts';
import { terminalLine } from '../terminal-text.ts';
import { goneLine } from '../session-reader.ts';

const usage = `Usage: session-hub tail <sessionId> [--from <seq>] [--follow] [--messages | --json] [options]

Prints the events of a session over the hub's WebSocket API: one readable line each (seq, time, type, a short
summary), or with --json one JSON event per line (pipeable into jq), or with --messages the derived messages as
a transcript (assistant text shows as its chunks stream in). Without --follow it stops once it has caught up
with the head; with --follow it keeps printing new events until Ctrl-C, across reconnects and hub restarts,
each seq exactly once. Needs read on the session.

Options:
  --from <seq>         first seq to print (default 0; not with --messages, which derives from seq 0)
  -f, --follow         keep printing events as they are appended
  --messages           print the derived messages instead of events
  --json               print each event as one JSON line
${HUB_OPTIONS_USAGE}

Example:
  session-hub tail acme/run-7 --follow --json | jq -c 'select(.type == "tool/call")'
`;

type Mode = 'lines' | 'json' | 'messages';

export const tailCommand = defineCommand({
  name: 'tail',
  summary: 'print a session log, and follow it live (--follow)',
  usage,
  options: {
    ...HUB_OPTIONS,
    from: { type: 'string' },
    follow: { type: 'boolean', short: 'f' },
    messages: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  argument: '<sessionId>',
  async run({ values, argument: sessionId, hub }, io) {
    if (values.messages === true && values.json === true) throw new UsageError('use --messages or --json, not both');
    const fromSeq = parseIndex('from', values.from) ?? 0;
    if (values.messages === true && fromSeq !== 0) throw new UsageError('--messages derives from seq 0: drop --from');
    const mode: Mode = values.messages === true ? 'messages' : values.json === true ? 'json' : 'lines';
    return tail(io, { sessionId, fromSeq, follow: values.follow === true, mode, ...hub() });
  },
});

interface TailOptions {
  readonly sessionId: string;
  readonly fromSeq: number;
  readonly follow: boolean;
  readonly mode: Mode;
  readonly wsUrl: string;
  readonly token: string | undefined;
}

function tail(io: CliIo, options: TailOptions): Promise<number> {
  const { sessionId, follow } = options;
  const client = new HubClient({
    url: options.wsUrl,
    ...(options.token === undefined ? {} : { token: options.token }),
    reconnect: { initialDelayMs: 100, maxDelayMs: 2_000 },
  });
  const subscription = client.subscribe(sessionId, { fromSeq: options.fromSeq });
  const printer = new Printer(io.stdout, options.mode, () => subscription.isLive);
  subscription.on('event', (event) => printer.event(event));
  subscription.on('messages', (change, messages) => printer.messages(change, messages));
  subscription.on('reset', () =>
    io.stderr.write(`${sessionId} was deleted or replaced: printing it again from seq 0\n`),
  );

  return new Promise<number>((resolve) => {
    let lastError: HubClientError | undefined;
    let connected = false;
    let lost = false;
    let done = false;
    const finish = (code: number, message?: string): void => {
      if (done) return;
      done = true;
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      printer.end();
      if (message !== undefined) io.stderr.write(`session-hub: ${terminalLine(message)}\n`);
      client.close();
      resolve(code);
    };
    const interrupted = (): void => finish(0);
    process.on('SIGINT', interrupted);
    process.on('SIGTERM', interrupted);
    client.on('error', (error) => {
      lastError = error;
    });
    subscription.on('error', (error) => {
      lastError = error;
    });
    subscription.on('live', () => {
      if (!follow) finish(0);
    });
    subscription.on('closed', () => {
      if (lastError?.code === 'GONE') return finish(1, goneLine(sessionId, lastError.details['firstSeq']));
      finish(1, lastError?.message ?? `the subscription to ${sessionId} ended`);
    });
    client.on('state', (next, previous, change) => {
      if (next === 'connected') {
        if (lost) io.stderr.write(`reconnected to ${client.url}\n`);
        connected = true;
        lost = false;
      } else if (next === 'disconnected' && previous !== 'disconnected') {
        // The cause: what the connection said when it dropped (ECONNREFUSED, …); the client's plan to retry is not
        // in it (tail gives up here unless it follows).
        const reason = ` (${change.code}: ${terminalLine(change.reason)})`;
        if (!connected && !follow) return finish(1, `cannot reach the hub at ${options.wsUrl}${reason}`);
        if (!lost) io.stderr.write(`connection to ${client.url} lost${reason}; reconnecting…\n`);
        lost = true;
      } else if (next === 'closed') {
        finish(1, lastError?.message ?? 'the connection closed');
      }
    });
  });
}

/** Writes what `tail` prints, in one of its modes. */
class Printer {
  readonly #out: NodeJS.WritableStream;
  readonly #mode: Mode;
  readonly #isLive: () => boolean;
  /** Streaming assistant text is on the current line (messages mode). */
  #streaming = false;
  #ended = false;

  constructor(out: NodeJS.WritableStream, mode: Mode, isLive: () => boolean) {
    this.#out = out;
    this.#mode = mode;
    this.#isLive = isLive;
  }

  event(event: SessionEvent): void {
    if (this.#ended) return;
    if (this.#mode === 'json') this.#out.write(toJsonl([event]));
    else if (this.#mode === 'lines') this.#out.write(eventLine(event));
    else if (event.type === 'assistant/chunk' && this.#isLive()) this.#chunk(event.data);
  }

  messages(change: ProjectionChange, all: readonly DerivedMessage[]): void {
    if (this.#ended || this.#mode !== 'messages' || change.kind === 'unchanged') return;
    this.#endStream();
    if (change.kind === 'replaced') {
      const last = change.start + change.deleteCount - 1;
      const replaced = change.deleteCount === 1 ? `message ${change.start}` : `messages ${change.start}..${last}`;
      this.#out.write(`~ ${replaced} replaced (now ${all.length} messages):\n`);
    }
    for (const message of change.messages) this.#out.write(messageLines(message));
  }

  end(): void {
    this.#endStream();
    this.#ended = true;
  }

  /** Live assistant text as it streams; the final message is printed when it lands. */
  #chunk(data: unknown): void {
    const chunk = (data as { chunk?: { type?: unknown; text?: unknown } }).chunk;
    if (typeof chunk?.text !== 'string') return;
    if (!this.#streaming) this.#out.write('assistant ▸ ');
    this.#streaming = true;
    this.#out.write(streamedText(chunk.text));
  }

  #endStream(): void {
    if (this.#streaming) this.#out.write('\n');
    this.#streaming = false;
  }
}
