import { CliFailure } from './command.ts';

const NEWLINE = 0x0a;

/**
 * `bytes` as text, refusing invalid UTF-8 (a lenient decoder would store U+FFFD in place of what the file held):
 * a `CliFailure` names the first line that is not valid, `line 3: not valid UTF-8`. A byte order mark stays in the
 * text (the JSONL parser then refuses line 1, as it refuses any other stray character).
 */
export function decodeUtf8(bytes: Uint8Array): string {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return decoder.decode(bytes);
  } catch {
    throw new CliFailure(`line ${firstInvalidLine(bytes, decoder)}: not valid UTF-8`);
  }
}

/** The number (from 1) of the first line of `bytes` that does not decode. */
function firstInvalidLine(bytes: Uint8Array, decoder: TextDecoder): number {
  let line = 1;
  for (let start = 0; start <= bytes.length; line++) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline < 0 ? bytes.length : newline;
    try {
      decoder.decode(bytes.subarray(start, end));
    } catch {
      return line;
    }
    start = end + 1;
  }
  return line;
}
