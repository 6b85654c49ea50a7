import { SessionLogError } from '../errors.ts';

/** Where a message sits: its index in the adapter's input, and the seq of its event when known. */
export interface Where {
  readonly index: number;
  readonly seq?: number;
}

/** The adapters' error: a SessionLogError whose `path` is `messages[i]` and whose `seq` is set when known. */
export function adapterError(
  code: 'UNPAIRED_TOOL_MESSAGE' | 'UNSUPPORTED_MESSAGE',
  at: Where,
  reason: string,
): SessionLogError {
  const path = `messages[${at.index}]`;
  const where = at.seq === undefined ? path : `${path} (event ${at.seq})`;
  return new SessionLogError(code, `${where}: ${reason}`, { path, ...(at.seq === undefined ? {} : { seq: at.seq }) });
}
