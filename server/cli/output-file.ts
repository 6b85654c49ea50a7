import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { CliFailure } from './command.ts';

/** Where a command writes its output: stdout, or a file that is removed again when the command fails. */
export interface Output {
  /** Write, waiting when the stream is full (bounded memory however long the output). */
  write(text: string): Promise<void>;
  /** Finish: flush and close a file (stdout stays open). */
  end(): Promise<void>;
  /** The command failed: close and remove a file. */
  abort(): Promise<void>;
}

export function openOutput(file: string | undefined, stdout: NodeJS.WritableStream): Output {
  if (file === undefined || file === '-') {
    return {
      write: async (text) => {
        if (!stdout.write(text)) await once(stdout, 'drain');
      },
      end: async () => {},
      abort: async () => {},
    };
  }
  const stream = createWriteStream(file, { flags: 'w' });
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  const check = (): void => {
    if (failure !== undefined) throw new CliFailure(`cannot write ${file}: ${failure.message}`, { cause: failure });
  };
  return {
    write: async (text) => {
      check();
      if (!stream.write(text)) await Promise.race([once(stream, 'drain'), once(stream, 'error')]);
      check();
    },
    end: async () => {
      stream.end();
      await finished(stream).catch(() => undefined);
      check();
    },
    abort: async () => {
      stream.destroy();
      await rm(file, { force: true });
    },
  };
}
