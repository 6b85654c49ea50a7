import { CliFailure, UsageError, type CliIo, type Command } from './command.ts';
import { exportCommand } from './commands/export.ts';
import { importCommand } from './commands/import.ts';
import { serveCommand } from './commands/serve.ts';
import { tailCommand } from './commands/tail.ts';
import { sessionsCommand } from './commands/sessions.ts';
import { rmCommand } from './commands/rm.ts';
import { forkCommand } from './commands/fork.ts';
import { eraseCommand } from './commands/erase.ts';
import { archiveCommand } from './commands/archive.ts';
import { restoreCommand } from './commands/restore.ts';
import { tokenCommand } from './commands/token.ts';
import { redactCommand } from './commands/redact.ts';
import { redisPurgeCommand } from './commands/redis-purge.ts';
import { terminalLine } from './terminal-text.ts';
import { packageVersion } from './version.ts';

/** Every command, in the order `session-hub --help` lists them. */
const commands: readonly Command[] = [
  serveCommand,
  tailCommand,
  exportCommand,
  importCommand,
  sessionsCommand,
  forkCommand,
  rmCommand,
  redactCommand,
  redisPurgeCommand,
  eraseCommand,
  archiveCommand,
  restoreCommand,
  tokenCommand,
];

function usage(): string {
  const width = Math.max(...commands.map((command) => command.name.length)) + 2;
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}${command.summary}`);
  return `Usage: session-hub <command> [options]

Commands:
${lines.join('\n')}

Run session-hub <command> --help for a command's options and an example; session-hub --version for the version.
Exit codes: 0 done, 1 failed (one line on stderr says why), 2 usage error.
`;
}

/** `session-hub` command line. Resolves with the exit code once the command is done. */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return 0;
  }
  if (name === undefined) {
    io.stderr.write(usage());
    return 2;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (command === undefined) {
    io.stderr.write(`session-hub: unknown command ${terminalLine(JSON.stringify(name))}\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`session-hub: ${terminalLine(error.message)}\n\n${command.usage}`);
      return 2;
    }
    const message = error instanceof CliFailure || error instanceof Error ? error.message : String(error);
    // The message may hold a hub's text (its error messages): shown, never obeyed, by the operator's terminal.
    io.stderr.write(`session-hub: ${terminalLine(message)}\n`);
    return 1;
  }
}

function processIo(): CliIo {
  // `session-hub tail … | head`: the reader went away, which ends the command rather than failing it.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}
