import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './cli-args.ts';
import { hubTarget, type HubTarget } from './hub-target.ts';

export { UsageError } from './cli-args.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** What a command may use of the process: its streams and its environment (as is; see `hubEnv`). */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WriteStream;
  readonly stdin: NodeJS.ReadStream;
  readonly env: Env;
}

/** One `session-hub <name>` command. */
export interface Command {
  readonly name: string;
  /** One line for the list of commands. */
  readonly summary: string;
  /** The text of `session-hub <name> --help`, with an example. */
  readonly usage: string;
  /**
   * Run with the arguments after the command name; resolves with the exit code (0 done). Throws `UsageError`
   * (exit 2) for bad arguments and `CliFailure` (exit 1) for a failure at run time.
   */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** A failure at run time (the hub refused, a file is bad, ...): exit 1 with `message` as the one line said. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options every command that talks to a hub takes. */
export const HUB_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
} as const satisfies Options;

export const HUB_OPTIONS_USAGE = `  --url <url>          the hub's HTTP address (env SESSION_HUB_URL; default http://127.0.0.1:8080)
  --token <jwt>        bearer token (env SESSION_HUB_TOKEN; prefer the env: argv is public)
  -h, --help           show this help`;

/**
 * `parseArgs` for a command: strict, `-h/--help` added, at most `maxPositionals` positionals. Returns 'help' when
 * help was asked for; throws `UsageError` on anything it cannot take. Empty option values are refused (an unset
 * shell variable).
 */
function parseCommandArgs<const O extends Options>(
  args: readonly string[],
  options: O,
  maxPositionals: number,
):
  | {
      values: ReturnType<typeof parseArgs<{ options: O & { help: { type: 'boolean'; short: 'h' } } }>>['values'];
      positionals: string[];
    }
  | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { ...options, help: { type: 'boolean', short: 'h' } } as O & { help: { type: 'boolean'; short: 'h' } },
      strict: true,
      allowPositionals: maxPositionals > 0,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values as Record<string, unknown>;
  if (values['help'] === true) return 'help';
  for (const [name, value] of Object.entries(values)) {
    if (value === '') throw new UsageError(`--${name} must not be empty`);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[maxPositionals])}`);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

type ParsedValues<O extends Options> = ReturnType<
  typeof parseArgs<{ options: O & { help: { type: 'boolean'; short: 'h' } } }>
>['values'];

/** What a command's opening hands to its body: the flags as parsed, its argument, and the hub it talks to. */
export interface Opening<O extends Options> {
  readonly values: ParsedValues<O>;
  /** The one positional argument (required when the command names one in `argument`; '' when it takes none). */
  readonly argument: string;
  /** The hub from `--url`/`--token` (a command that talks to one takes HUB_OPTIONS) or the environment. */
  hub(): HubTarget;
}

/** A command as `defineCommand` takes it: its options, its argument, and its body. */
export interface CommandSpec<O extends Options> {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly options: O;
  /** The one positional argument as the usage names it (`<sessionId>`): then required. Omitted: none taken. */
  readonly argument?: string;
  run(opening: Opening<O>, io: CliIo): Promise<number>;
}

/**
 * The opening every command shares: strict flags (`parseCommandArgs`), `--help` prints the usage on stdout and
 * exits 0, a missing argument is a usage error, and the hub target is resolved from flags and environment.
 */
export function defineCommand<const O extends Options>(spec: CommandSpec<O>): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    usage: spec.usage,
    async run(args, io) {
      const parsed = parseCommandArgs(args, spec.options, spec.argument === undefined ? 0 : 1);
      if (parsed === 'help') {
        io.stdout.write(spec.usage);
        return 0;
      }
      const argument = parsed.positionals[0];
      if (spec.argument !== undefined && argument === undefined) throw new UsageError(`missing ${spec.argument}`);
      const { values } = parsed;
      const hub = (): HubTarget => hubTarget(values as { readonly url?: string; readonly token?: string }, io.env);
      return spec.run({ values, argument: argument ?? '', hub }, io);
    },
  };
}

/** A non-negative integer option (`--from 12`). */
export function parseIndex(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(text)}`);
  }
  return value;
}
