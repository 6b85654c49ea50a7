import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import { CliFailure } from './command.ts';

/** Where a command writes its output: stdout, or a file that appears only when the command succeeds. */
export interface Output {
  /** Write, waiting when the stream is full (bounded memory however long the output). */
  write(text: string): Promise<void>;
  /** Finish: flush and close a file and put it in place (stdout stays open). */
  end(): Promise<void>;
  /** The command failed: close and remove what was written (a file that was there before stays as it was). */
  abort(): Promise<void>;
}

/**
 * stdout (`file` undefined or `-`), or `file` written safely: the output goes to a new temporary file beside it
 * (`.<name>.<random>.tmp`, created exclusively, so it never opens an existing file or follows a symlink) which is
 * renamed over `file` once complete. A failed command leaves `file` as it was; a `file` that is a symlink is
 * replaced by the new file, its target never written.
 */
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
  const partial = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const stream = createWriteStream(partial, { flags: 'wx' });
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
      await rename(partial, file).catch((error: unknown) => {
        throw new CliFailure(`cannot write ${file}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      });
    },
    abort: async () => {
      stream.destroy();
      await finished(stream).catch(() => undefined);
      await rm(partial, { force: true });
    },
  };
}
